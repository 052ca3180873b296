// Latvian (latviešu): the sentences that name cards, and the forms each card's name takes in them, in
// Project Fluent (grammar.js reads them; docs/glossary.md lists the forms).
export default `
## Each sentence's .card (.cards) says the case its card takes: novietot, izspēlēt,
## paturēt, nolikt, noņemt + akuzatīvs (acc).
move-path = novietot { $card } lauciņā { $at }
    .card = acc
move-path_turned = novietot { $card } lauciņā { $at }, otrādi
    .card = acc
move-action = izspēlēt { $card }
    .card = acc
move-action_on = izspēlēt { $card }, mērķis: { $who }
    .card = acc
move-action_on_tool = izspēlēt { $card }, mērķis: { $who } ({ $tool })
    .card = acc
move-action_at = izspēlēt { $card } lauciņā { $at }
    .card = acc
move-keep = paturēt { $card }
    .card = acc
move-discard_to_remove = nolikt { $cards } un noņemt { $card }
    .cards = acc
    .card = acc
table-target = izspēlēt { $card }: { $where }
    .card = acc
table-also_discard = nolikt arī { $card }
    .card = acc
event-tool_broken = { $by } izspēlēja { $card }, mērķis: { $target }
    .card = acc

## The cards' forms (a form not given is the name's, the same in that case).
card-break_pickaxe = salauzta cērte
    .acc = salauztu cērti
card-break_lantern = salauzta laterna
    .acc = salauztu laternu
card-break_cart = salauzta vagonete
    .acc = salauztu vagoneti
card-repair_pickaxe = cērtes remonts
    .acc = cērtes remontu
card-repair_lantern = laternas remonts
    .acc = laternas remontu
card-repair_cart = vagonetes remonts
    .acc = vagonetes remontu
card-repair_pickaxe_lantern = cērtes vai laternas remonts
    .acc = cērtes vai laternas remontu
card-repair_pickaxe_cart = cērtes vai vagonetes remonts
    .acc = cērtes vai vagonetes remontu
card-repair_lantern_cart = laternas vai vagonetes remonts
    .acc = laternas vai vagonetes remontu
card-rockfall = akmeņu nogrūvums
    .acc = akmeņu nogrūvumu
card-map = karte
    .acc = karti
card-theft = zādzība
    .acc = zādzību
card-inspection = pārbaude
    .acc = pārbaudi
card-gold = zelta gabalu kārts ({ $n })
    .acc = zelta gabalu kārti ({ $n })
path-tunnel = tunelis
    .acc = tuneli
path-deadend = strupceļš
    .acc = strupceļu
path-crystal_tunnel = tunelis ar kristālu
    .acc = tuneli ar kristālu
path-crystal_deadend = strupceļš ar kristālu
    .acc = strupceļu ar kristālu
path-bridge = tilts
    .acc = tiltu
path-double_curve = dubultais līkums
    .acc = dubulto līkumu

## Numbers: 1 kārts (nolika 1 kārti), 2 kārtis; 21 kārts, as the number's last word.
event-passed = { $n ->
    [one] { $by } izlaida gājienu un nolika { $n } kārti
   *[other] { $by } izlaida gājienu un nolika { $n } kārtis
}
event-gold_drawn = { $n ->
    [one] { $by } izvilka { $n } zelta kārti
   *[other] { $by } izvilka { $n } zelta kārtis
}
players-cards = { $n ->
    [one] { $n } kārts
   *[other] { $n } kārtis
}, { $gold ->
    [one] { $gold } zelta kārts
   *[other] { $gold } zelta kārtis
}

## izspēlēja + akuzatīvs.
event-action_cancelled = { $by } izspēlēja { $card }, mērķis: { $target }; noņemta kārts: { $removed }
    .card = acc
board-goal_seen = finiša kārts lauciņā { $at }: aizklāta, tu redzēji: { $card }
## Atsaukti gājieni: lūgums atsaukt, un atsaukšana (saimnieka, ar iemeslu).
## 1, 21 …: 1 gājiens (atsaukt 1 gājienu); citādi gājieni (atsaukt gājienus).
event-undo_requested = { $n ->
    [one] { $by } lūdz atsaukt { $n } gājienu
   *[other] { $by } lūdz atsaukt { $n } gājienus
}
event-undone = { $n ->
    [one] atsaukts: { $n } gājiens
   *[other] atsaukti: { $n } gājieni
}
event-undone_reason = { $n ->
    [one] atsaukts: { $n } gājiens ({ $reason })
   *[other] atsaukti: { $n } gājieni ({ $reason })
}
## How long ago a game under way last moved (lobby): $unit is now, minute, hour or day;
## pirms + ģenitīvs in the singular (pirms 21 minūtes), datīvs in the plural (pirms 5 minūtēm).
lobby-moved_ago = { $unit ->
    [now] tikko
    [minute] { $n ->
        [one] pirms { $n } minūtes
       *[other] pirms { $n } minūtēm
    }
    [hour] { $n ->
        [one] pirms { $n } stundas
       *[other] pirms { $n } stundām
    }
   *[day] { $n ->
        [one] pirms { $n } dienas
       *[other] pirms { $n } dienām
    }
}
`;
