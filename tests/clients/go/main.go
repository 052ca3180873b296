// An example third-party client in Go, written as a developer outside the project would: the
// client package is generated from the committed spec with openapi-generator (its `go`
// generator), and this bot uses nothing else but the standard library, which reads the live
// stream (Server-Sent Events) with a line scanner.
//
//	go run . http://127.0.0.1:8080
//
// It creates a base game, takes seat 0 with a public key of its own, gives the other seats to
// the server's bots, starts, follows the event stream to its end (every event once, resumed
// with Last-Event-ID after a dropped connection), and plays a legal move whenever its seat is
// awaited, signed with its key (crypto/ed25519: docs/clients.md, "Signing your acts"); a
// refusal is shown with its status and problem code (a string: codes may be added). It keeps
// the server's keys from first contact and every receipt the server returns; once the game is
// over it prints the score and checks the game offline with `saboteur verify` ($SABOTEUR_BIN):
// the audit bundle, the receipts and the keys kept, and every act of its seat signed by its key.
package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	mathrand "math/rand"
	"net/http"
	"os"
	"strings"

	saboteur "example.invalid/saboteur/client"
)

// problem is what the server said when it refused a call: the status and the problem's code.
func problem(err error, response *http.Response) string {
	status := 0
	if response != nil {
		status = response.StatusCode
	}
	var api *saboteur.GenericOpenAPIError
	if errors.As(err, &api) {
		if p, ok := api.Model().(saboteur.Problem); ok {
			return fmt.Sprintf("%d %s: %s", status, p.Code, p.Detail)
		}
	}
	return fmt.Sprintf("%d %v", status, err)
}

func must[T any](what string, value T, response *http.Response, err error) T {
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %s\n", what, problem(err, response))
		os.Exit(1)
	}
	return value
}

// recordVersion is the record version this bot signs for: its games' players sign
// `saboteur-act-v3`; a game of another record version is refused.
const recordVersion = 7

// signer is a seat's Ed25519 key: every act of a seat that registered it carries its signature
// of the act's canonical statement (RFC 8785): the scheme, the act, the game, the seat, the
// version, the body as a JSON value and the event the act is about (none for a command).
type signer struct {
	key  ed25519.PrivateKey
	acts int
}

func newSigner() *signer {
	_, key, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		fmt.Fprintln(os.Stderr, "a key:", err)
		os.Exit(1)
	}
	return &signer{key: key}
}

// publicKey is the key as the server takes it: 64 hex digits.
func (s *signer) publicKey() string {
	return hex.EncodeToString(s.key.Public().(ed25519.PublicKey))
}

// keyProof is the proof that the key's holder sends it for `game`: the signature of the
// RFC 8785 JSON of the scheme, the game and the key (three strings of ASCII letters, digits
// and dashes, which encoding/json writes as JCS does), 128 hex digits. It goes with the public
// key wherever that is sent.
func (s *signer) keyProof(game string) string {
	statement, err := json.Marshal(map[string]string{"scheme": "saboteur-key-v1", "game": game, "key": s.publicKey()})
	if err != nil {
		fmt.Fprintln(os.Stderr, "the key's proof:", err)
		os.Exit(1)
	}
	return hex.EncodeToString(ed25519.Sign(s.key, statement))
}

// sign adds the headers that sign `act` of `seat` in `game` with `body`, chosen at `version`.
func (s *signer) sign(header http.Header, game string, seat int32, version int64, act string, body []byte) {
	header.Set("Seat-Signature", hex.EncodeToString(ed25519.Sign(s.key, statement(game, seat, version, act, body))))
	header.Set("Seat-Signature-Version", fmt.Sprint(version))
	s.acts++
}

// statement is the act's canonical statement. encoding/json writes what RFC 8785 asks of
// this bot's bodies — members sorted (ASCII names), integers as they are, no spaces — once HTML
// escaping is off; a body with fractions or U+2028 in a string would need a JCS library.
func statement(game string, seat int32, version int64, act string, body []byte) []byte {
	var value any
	if len(body) > 0 {
		decoder := json.NewDecoder(bytes.NewReader(body))
		decoder.UseNumber()
		if err := decoder.Decode(&value); err != nil {
			fmt.Fprintln(os.Stderr, "a body that is not JSON:", err)
			os.Exit(1)
		}
	}
	var out bytes.Buffer
	encoder := json.NewEncoder(&out)
	encoder.SetEscapeHTML(false)
	err := encoder.Encode(map[string]any{
		"scheme": "saboteur-act-v3", "act": act, "game": game, "seat": seat, "version": version, "body": value,
		// The event the act is about: an undo's, a vote's or a reclaim's; none for a command.
		"about": nil,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "the statement:", err)
		os.Exit(1)
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n"))
}

type bot struct {
	api    *saboteur.APIClient
	base   string
	game   string
	seat   int32
	token  string
	player context.Context
	signer *signer
	kept   *kept
}

// send posts a command chosen at `version`, signed: the model marshalled, its statement signed.
// A refusal is returned as its status and problem. The outcome's receipt is kept, and so is a
// refusal's.
func (b *bot) send(move saboteur.Command, version int64) error {
	body, err := json.Marshal(move)
	if err != nil {
		return err
	}
	request, _ := http.NewRequest("POST", b.base+"/games/"+b.game+"/commands", bytes.NewReader(body))
	request.Header.Set("Content-Type", "application/json")
	request.Header.Set("Authorization", "Bearer "+b.token)
	request.Header.Set("If-Match", fmt.Sprintf("%q", fmt.Sprint(version)))
	request.Header.Set("Idempotency-Key", fmt.Sprintf("go-%d-%d", version, mathrand.Int63()))
	b.signer.sign(request.Header, b.game, b.seat, version, "command", body)
	response, err := http.DefaultClient.Do(request)
	if err != nil {
		return err
	}
	defer response.Body.Close()
	if response.StatusCode == 200 {
		var outcome saboteur.Outcome
		if err := json.NewDecoder(response.Body).Decode(&outcome); err != nil {
			return fmt.Errorf("an outcome the client cannot read: %w", err)
		}
		b.kept.keep(outcome.Receipt.Get())
		return nil
	}
	var p saboteur.Problem
	if err := json.NewDecoder(response.Body).Decode(&p); err != nil {
		return fmt.Errorf("%d", response.StatusCode)
	}
	b.kept.keep(p.Receipt)
	return fmt.Errorf("%d %s: %s", response.StatusCode, p.Code, p.Detail)
}

// act plays once if the seat is awaited; it returns whether the game is over.
func (b *bot) act() bool {
	state, response, err := b.api.PlayAPI.GetState(b.player, b.game).Execute()
	view := must("state", state, response, err).View
	b.kept.keep(state.Receipt.Get())
	if view.Phase.Name == saboteur.PHASENAME_GAME_OVER {
		return true
	}
	if awaited := view.Phase.Awaited.Get(); awaited == nil || *awaited != b.seat {
		return false
	}
	legal, response, err := b.api.PlayAPI.LegalMoves(b.player, b.game).Execute()
	moves := must("legal moves", legal, response, err).Commands
	if len(moves) == 0 {
		return false
	}
	move := moves[mathrand.Intn(len(moves))]
	if err := b.send(move, state.Version); err != nil {
		// 409 or 412: someone moved first; the next event brings the new state.
		fmt.Println("refused:", err)
	}
	return false
}

// follow reads the stream after `last` until the server ends it or the connection drops; it
// returns the last sequence number seen. Every event is a chance to play.
func (b *bot) follow(token string, last int64, over *bool) int64 {
	request, _ := http.NewRequest("GET", b.base+"/games/"+b.game+"/events/stream", nil)
	request.Header.Set("Accept", "text/event-stream")
	request.Header.Set("Authorization", "Bearer "+token)
	if last > 0 {
		request.Header.Set("Last-Event-ID", fmt.Sprint(last))
	}
	response, err := http.DefaultClient.Do(request)
	if err != nil {
		return last
	}
	defer response.Body.Close()
	if response.StatusCode != 200 {
		fmt.Fprintln(os.Stderr, "stream:", response.Status)
		os.Exit(1)
	}
	lines := bufio.NewScanner(response.Body)
	lines.Buffer(make([]byte, 1<<16), 1<<22)
	var data strings.Builder
	for lines.Scan() {
		line := lines.Text()
		switch {
		case strings.HasPrefix(line, "data:"):
			data.WriteString(strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
		case line == "" && data.Len() > 0:
			var record saboteur.EventRecord
			if err := json.Unmarshal([]byte(data.String()), &record); err != nil {
				fmt.Fprintln(os.Stderr, "an event the client cannot read:", err)
				os.Exit(1)
			}
			data.Reset()
			if record.Seq != last+1 {
				fmt.Fprintf(os.Stderr, "event %d after %d: the stream skipped or repeated\n", record.Seq, last)
				os.Exit(1)
			}
			last = record.Seq
			if !*over {
				*over = b.act()
			}
		}
	}
	return last
}

func main() {
	base := "http://127.0.0.1:8080"
	if len(os.Args) > 1 {
		base = os.Args[1]
	}
	config := saboteur.NewConfiguration()
	config.Servers = saboteur.ServerConfigurations{{URL: base}}
	api := saboteur.NewAPIClient(config)
	ctx := context.Background()

	// The server's keys, kept from first contact: the receipts are checked against these.
	keys, response, err := api.AuditAPI.ListKeys(ctx).Execute()
	kept := &kept{keys: *must("keys", keys, response, err)}
	created, response, err := api.GamesAPI.CreateGame(ctx).CreateGame(*saboteur.NewCreateGame(4, saboteur.RULESET_BASE)).Execute()
	game := must("create", created, response, err)
	kept.keep(game.Receipt.Get())
	host := context.WithValue(ctx, saboteur.ContextAccessToken, game.HostToken)
	// The seat with a key of its own: from the start, every act of the seat is signed.
	key := newSigner()
	join := saboteur.NewJoinGame("go example")
	join.SetPublicKey(key.publicKey())
	join.SetKeyProof(key.keyProof(game.GameId))
	joined, response, err := api.GamesAPI.Join(ctx, game.GameId).JoinGame(*join).Execute()
	seat := must("join", joined, response, err)
	kept.keep(seat.Receipt.Get())
	// The signed reply commits to the key the seat was taken with: another key (the reply
	// rewritten, the seat taken with the operator's key) is refused before anything is signed.
	if commitment := seat.GetCommitment(); commitment.GetPublicKey() != key.publicKey() {
		fmt.Fprintf(os.Stderr, "the reply to taking the seat commits to the key %q, not the key sent (%s)\n",
			commitment.GetPublicKey(), key.publicKey())
		os.Exit(1)
	}
	for i := 1; i < 4; i++ {
		_, response, err := api.GamesAPI.AddBot(host, game.GameId).AddBot(*saboteur.NewAddBot(saboteur.BOTLEVEL_HEURISTIC)).Execute()
		must("add a bot", 0, response, err)
	}
	started, response, err := api.GamesAPI.StartGame(host, game.GameId).Execute()
	kept.keep(must("start", started, response, err).Receipt.Get())
	fmt.Printf("game %s (base, 4 players): seat %d\n", game.GameId, seat.Seat)

	b := &bot{api: api, base: base, game: game.GameId, seat: seat.Seat, token: seat.PlayerToken,
		player: context.WithValue(ctx, saboteur.ContextAccessToken, seat.PlayerToken), signer: key, kept: kept}
	// A game of another record version than this bot signs is refused before any act.
	first, response, err := api.PlayAPI.GetState(b.player, b.game).Execute()
	if record := must("state", first, response, err).Table.RecordVersion; record != recordVersion {
		fmt.Fprintf(os.Stderr, "the game is of record version %d; this bot signs record version %d only\n", record, recordVersion)
		os.Exit(1)
	}
	over := b.act()
	var seen int64
	for {
		seen = b.follow(seat.PlayerToken, seen, &over)
		// The server ends the stream after a finished game's last event; any other end is a
		// dropped connection, resumed after the last event seen.
		if b.act() {
			break
		}
	}
	final, response, err := api.PlayAPI.GetState(b.player, b.game).Execute()
	end := must("state", final, response, err)
	kept.keep(end.Receipt.Get())
	if seen != end.Version {
		fmt.Fprintf(os.Stderr, "the stream showed %d of %d events\n", seen, end.Version)
		os.Exit(1)
	}
	var score []string
	for s, gold := range end.View.Gold {
		score = append(score, fmt.Sprintf("seat %d %d", s, gold))
	}
	fmt.Printf("final score: %s; winners %v; events %d, every one followed\n", strings.Join(score, ", "), end.View.Winners, end.Version)
	fmt.Printf("signed: %d acts with 1 key\n", b.signer.acts)

	said, err := kept.verify(api, b.game, b.seat, key.publicKey())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, line := range said {
		fmt.Println(line)
	}
}
