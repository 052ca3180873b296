// Dutch (Nederlands): the sentences that name cards, and the forms each card's name takes in them, in
// Project Fluent (grammar.js reads them; docs/glossary.md lists the forms).
export default `
move-path = leg { $card } op { $at }
move-path_turned = leg { $card } op { $at }, gedraaid
move-action = speel { $card }
move-action_on = speel { $card } op { $who }
move-action_on_tool = speel { $card } op { $who } ({ $tool })
move-action_at = speel { $card } op { $at }
move-keep = houd { $card }
move-discard_to_remove = leg { $cards } af om { $card } te verwijderen
table-target = speel { $card } op { $where }
table-also_discard = ook { $card } afleggen
event-tool_broken = gereedschap kapotgemaakt door { $by }: { $card } op { $target }

event-passed = { $n ->
    [one] { $by } past en legt één kaart af
   *[other] { $by } past en legt { $n } kaarten af
}
event-gold_drawn = { $n ->
    [one] { $by } trok één goudkaart
   *[other] { $by } trok { $n } goudkaarten
}
players-cards = { $n ->
    [one] één kaart
   *[other] { $n } kaarten
}, { $gold ->
    [one] één goudkaart
   *[other] { $gold } goudkaarten
}

event-action_cancelled = { $by } speelde { $card } op { $target }: { $removed } verwijderd
board-goal_seen = doelkaart op { $at }: gedekt, je zag { $card }
## Zetten teruggenomen: een verzoek om terug te draaien, en het terugdraaien (door de host, met een reden).
event-undo_requested = { $n ->
    [one] { $by } vraagt om één zet terug te nemen
   *[other] { $by } vraagt om { $n } zetten terug te nemen
}
event-undone = { $n ->
    [one] teruggedraaid: één zet teruggenomen
   *[other] teruggedraaid: { $n } zetten teruggenomen
}
event-undone_reason = { $n ->
    [one] teruggedraaid: één zet teruggenomen ({ $reason })
   *[other] teruggedraaid: { $n } zetten teruggenomen ({ $reason })
}
## How long ago a game under way last moved (lobby): $unit is now, minute, hour or day.
lobby-moved_ago = { $unit ->
    [now] zojuist
    [minute] { $n ->
        [one] een minuut geleden
       *[other] { $n } minuten geleden
    }
    [hour] { $n ->
        [one] een uur geleden
       *[other] { $n } uur geleden
    }
   *[day] { $n ->
        [one] een dag geleden
       *[other] { $n } dagen geleden
    }
}
`;
