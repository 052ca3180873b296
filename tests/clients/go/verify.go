package main

// The game checked offline once it is over, as a player settling a dispute would: the audit
// bundle as downloaded, the receipts and the server's keys the client kept, given to
// `saboteur verify` with the seat's own key (docs/clients.md, "Signing your acts").

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	saboteur "example.invalid/saboteur/client"
)

// kept is what the client keeps to prove later what it was told: the server's keys from first
// contact (`GET /keys`, before anything else: a receipt signed by a kept key the bundle no
// longer publishes shows the server withdrawing it) and every receipt the server signed for
// what it served.
type kept struct {
	keys     saboteur.KeyList
	receipts []saboteur.Receipt
}

// keep keeps a reply's receipt, if it carries one: a view, an outcome, a commitment or a
// refusal. The generated models keep a null member apart from an absent one, so a receipt is
// marshalled again as it was signed.
func (k *kept) keep(receipt *saboteur.Receipt) {
	if receipt != nil {
		k.receipts = append(k.receipts, *receipt)
	}
}

// verify downloads the finished game's audit bundle and runs `saboteur verify` ($SABOTEUR_BIN,
// else `saboteur` on the PATH) on it, with the receipts and keys kept and `--player-key
// SEAT:KEY` for the seat played: every act of the seat must be signed by its key. It returns
// the lines to print, or what went wrong with verify's whole output (which names every act of
// the seat signed by another key).
func (k *kept) verify(api *saboteur.APIClient, game string, seat int32, key string) ([]string, error) {
	_, response, err := api.EventsAPI.AuditBundle(context.Background(), game).Execute()
	if err != nil {
		return nil, fmt.Errorf("audit bundle: %s", problem(err, response))
	}
	// The generated client leaves the body it read in the response: the bundle is written as
	// downloaded, not as the model would marshal it again.
	bundle, err := io.ReadAll(response.Body)
	if err != nil {
		return nil, fmt.Errorf("audit bundle: %w", err)
	}
	receipts, err := json.Marshal(k.receipts)
	if err != nil {
		return nil, err
	}
	keys, err := json.Marshal(k.keys)
	if err != nil {
		return nil, err
	}
	folder, err := os.MkdirTemp("", "saboteur-verify-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(folder)
	files := map[string][]byte{"bundle": bundle, "receipts": receipts, "keys": keys}
	paths := map[string]string{}
	for name, text := range files {
		paths[name] = filepath.Join(folder, name+".json")
		if err := os.WriteFile(paths[name], text, 0o600); err != nil {
			return nil, err
		}
	}

	binary := os.Getenv("SABOTEUR_BIN")
	if binary == "" {
		binary = "saboteur"
	}
	command := exec.Command(binary, "verify", "--file", paths["bundle"], "--receipts", paths["receipts"],
		"--keys", paths["keys"], "--player-key", fmt.Sprintf("%d:%s", seat, key))
	var stdout, stderr bytes.Buffer
	command.Stdout, command.Stderr = &stdout, &stderr
	if err := command.Run(); err != nil {
		return nil, fmt.Errorf("saboteur verify: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	// The seat's key named by its fingerprint: the option was checked, not ignored.
	said := fmt.Sprintf("every act of seat %d is signed by the key %s", seat, fingerprint(key))
	for _, line := range strings.Split(stdout.String(), "\n") {
		if line == said {
			return []string{fmt.Sprintf("verify: ok (%d receipts)", len(k.receipts)), "verify: " + said}, nil
		}
	}
	return nil, fmt.Errorf("saboteur verify did not say %q:\n%s", said, stdout.String())
}

// fingerprint is a key's fingerprint, as the server and `saboteur verify` show it: the first
// 16 hex digits of the SHA-256 of its 32 bytes, in groups of four.
func fingerprint(key string) string {
	raw, err := hex.DecodeString(key)
	if err != nil {
		return "not a key: " + key
	}
	digest := sha256.Sum256(raw)
	digits := hex.EncodeToString(digest[:8])
	return strings.Join([]string{digits[0:4], digits[4:8], digits[8:12], digits[12:16]}, " ")
}
