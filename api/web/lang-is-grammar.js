// Icelandic (íslenska): the sentences that name cards, and the forms each card's name takes in them, in
// Project Fluent (grammar.js reads them; docs/glossary.md lists the forms).
export default `
## Each sentence's .card (.cards) says the case its card takes: leggja + þolfall (acc),
## spila, halda, kasta + þágufall (dat), fjarlægja + þolfall.
move-path = leggja { $card } á reit { $at }
    .card = acc
move-path_turned = leggja { $card } á reit { $at }, snúið
    .card = acc
move-action = spila { $card }
    .card = dat
move-action_on = spila { $card } á { $who }
    .card = dat
move-action_on_tool = spila { $card } á { $who } ({ $tool })
    .card = dat
move-action_at = spila { $card } á reit { $at }
    .card = dat
move-keep = halda { $card }
    .card = dat
move-discard_to_remove = kasta { $cards } til að fjarlægja { $card }
    .cards = dat
    .card = acc
table-target = spila { $card }: { $where }
    .card = dat
table-also_discard = kasta líka { $card }
    .card = dat
event-tool_broken = { $by } spilaði { $card } á { $target }
    .card = dat

## The cards' forms (a form not given is the name's, the same in that case).
card-break_pickaxe = brotinn haki
    .acc = brotinn haka
    .dat = brotnum haka
card-break_lantern = brotin lugt
    .acc = brotna lugt
    .dat = brotinni lugt
card-break_cart = brotinn námuvagn
    .dat = brotnum námuvagni
card-rockfall = grjótskriða
    .acc = grjótskriðu
    .dat = grjótskriðu
card-map = kort
    .dat = korti
card-theft = þjófnaður
    .acc = þjófnað
    .dat = þjófnaði
card-gold = gullmolaspil ({ $n })
    .dat = gullmolaspili ({ $n })
path-tunnel = göng
    .dat = göngum
path-deadend = botnlangi
    .acc = botnlanga
    .dat = botnlanga
path-crystal_tunnel = göng með kristal
    .dat = göngum með kristal
path-crystal_deadend = botnlangi með kristal
    .acc = botnlanga með kristal
    .dat = botnlanga með kristal
path-door_blue = blá hurð
    .acc = bláa hurð
    .dat = blárri hurð
path-door_green = græn hurð
    .acc = græna hurð
    .dat = grænni hurð
path-ladder = stigi
    .acc = stiga
    .dat = stiga
path-double_curve = tvöföld beygja
    .acc = tvöfalda beygju
    .dat = tvöfaldri beygju

## Numbers: kasta + þágufall (einu spili, tveimur spilum); "spil" is the same in the singular
## and the plural otherwise.
event-passed = { $n ->
    [one] { $by } sat hjá og kastaði { $n } spili
   *[other] { $by } sat hjá og kastaði { $n } spilum
}
event-gold_drawn = { $by } dró { $n } gullmolaspil
players-cards = { $n } spil, { $gold } gullmolaspil

## spilaði + þágufall; sást (sjá) + þolfall.
event-action_cancelled = { $by } spilaði { $card } á { $target }: { $removed } fjarlægt
    .card = dat
board-goal_seen = endaspil á reit { $at }: á hvolfi, þú sást { $card }
    .card = acc
card-goal_gold = fjársjóður (gull)
    .acc = fjársjóð (gull)
card-goal_stone = steinn
    .acc = stein
## Leikir teknir aftur: beiðni um afturköllun, og afturköllun (gestgjafans, með ástæðu).
## 1, 21, 31 …: einn leikur tekinn aftur; annars leikir teknir aftur.
event-undo_requested = { $n ->
    [one] { $by } biður um að taka aftur { $n } leik
   *[other] { $by } biður um að taka aftur { $n } leiki
}
event-undone = { $n ->
    [one] afturkallað: { $n } leikur tekinn aftur
   *[other] afturkallað: { $n } leikir teknir aftur
}
event-undone_reason = { $n ->
    [one] afturkallað: { $n } leikur tekinn aftur ({ $reason })
   *[other] afturkallað: { $n } leikir teknir aftur ({ $reason })
}
## How long ago a game under way last moved (lobby): $unit is now, minute, hour or day;
## fyrir + þágufall (fyrir einni mínútu, fyrir 5 mínútum; 21 takes the singular).
lobby-moved_ago = { $unit ->
    [now] rétt í þessu
    [minute] { $n ->
        [one] fyrir { $n } mínútu
       *[other] fyrir { $n } mínútum
    }
    [hour] { $n ->
        [one] fyrir { $n } klukkustund
       *[other] fyrir { $n } klukkustundum
    }
   *[day] { $n ->
        [one] fyrir { $n } degi
       *[other] fyrir { $n } dögum
    }
}
`;
