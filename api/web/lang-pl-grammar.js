// Polish (polski): the sentences that name cards, and the forms each card's name takes in them, in
// Project Fluent (grammar.js reads them; docs/glossary.md lists the forms).
export default `
## Each sentence's .card (.cards) says the case its card takes: połóż, zagraj, zatrzymaj,
## odrzuć, usunąć + biernik (acc).
move-path = połóż { $card } na { $at }
    .card = acc
move-path_turned = połóż { $card } na { $at }, po obróceniu o 180°
    .card = acc
move-action = zagraj { $card }
    .card = acc
move-action_on = zagraj { $card }, cel: { $who }
    .card = acc
move-action_on_tool = zagraj { $card }, cel: { $who } ({ $tool })
    .card = acc
move-action_at = zagraj { $card } na { $at }
    .card = acc
move-keep = zatrzymaj { $card }
    .card = acc
move-discard_to_remove = odrzuć { $cards }, by usunąć { $card }
    .cards = acc
    .card = acc
table-target = zagraj { $card } — { $where }
    .card = acc
table-also_discard = odrzuć też { $card }
    .card = acc
event-tool_broken = { $by } zagrywa { $card } na gracza { $target }
    .card = acc

## The cards' forms (a form not given is the name's, the same in that case).
card-break_lantern = zepsuta latarnia
    .acc = zepsutą latarnię
card-repair_pickaxe = naprawa kilofu
    .acc = naprawę kilofu
card-repair_lantern = naprawa latarni
    .acc = naprawę latarni
card-repair_cart = naprawa wagonika
    .acc = naprawę wagonika
card-repair_pickaxe_lantern = naprawa kilofu lub latarni
    .acc = naprawę kilofu lub latarni
card-repair_pickaxe_cart = naprawa kilofu lub wagonika
    .acc = naprawę kilofu lub wagonika
card-repair_lantern_cart = naprawa latarni lub wagonika
    .acc = naprawę latarni lub wagonika
card-map = mapa
    .acc = mapę
card-swap_hand = zamiana kart
    .acc = zamianę kart
card-inspection = inspekcja
    .acc = inspekcję
card-swap_hats = zamiana kapelusza
    .acc = zamianę kapelusza
card-gold = karta bryłek złota ({ $n })
    .acc = kartę bryłek złota ({ $n })
path-ladder = drabina
    .acc = drabinę

## Numbers: 1 kartę, 2–4 karty, 5 kart (biernik), and 1 karta, 2–4 karty, 5 kart.
event-passed = { $n ->
    [one] { $by } pasuje i odrzuca { $n } kartę
    [few] { $by } pasuje i odrzuca { $n } karty
   *[many] { $by } pasuje i odrzuca { $n } kart
}
event-gold_drawn = { $n ->
    [one] { $by } dobiera { $n } kartę bryłek złota
    [few] { $by } dobiera { $n } karty bryłek złota
   *[many] { $by } dobiera { $n } kart bryłek złota
}
players-cards = { $n ->
    [one] { $n } karta
    [few] { $n } karty
   *[many] { $n } kart
}, { $gold ->
    [one] { $gold } karta bryłek złota
    [few] { $gold } karty bryłek złota
   *[many] { $gold } kart bryłek złota
}

## zagrywa + biernik.
event-action_cancelled = { $by } zagrywa { $card } na gracza { $target }; usunięto: { $removed }
    .card = acc
board-goal_seen = karta celu na { $at }: zakryta, już ją znasz: { $card }
## Cofnięte ruchy: prośba o cofnięcie i samo cofnięcie (gospodarza, z powodem).
## cofnięto 1 ruch, 2–4 ruchy, 5 ruchów; o cofnięcie 1 ruchu, 2 ruchów (dopełniacz).
event-undo_requested = { $n ->
    [one] { $by } prosi o cofnięcie jednego ruchu
   *[other] { $by } prosi o cofnięcie { $n } ruchów
}
event-undone = { $n ->
    [one] cofnięto { $n } ruch
    [few] cofnięto { $n } ruchy
   *[many] cofnięto { $n } ruchów
}
event-undone_reason = { $n ->
    [one] cofnięto { $n } ruch ({ $reason })
    [few] cofnięto { $n } ruchy ({ $reason })
   *[many] cofnięto { $n } ruchów ({ $reason })
}
## How long ago a game under way last moved (lobby): $unit is now, minute, hour or day.
lobby-moved_ago = { $unit ->
    [now] przed chwilą
    [minute] { $n ->
        [one] minutę temu
        [few] { $n } minuty temu
       *[many] { $n } minut temu
    }
    [hour] { $n ->
        [one] godzinę temu
        [few] { $n } godziny temu
       *[many] { $n } godzin temu
    }
   *[day] { $n ->
        [one] wczoraj
        [few] { $n } dni temu
       *[many] { $n } dni temu
    }
}
`;
