// English: the sentences that name cards, and the forms each card's name takes in them, in
// Project Fluent (grammar.js reads them; docs/glossary.md lists the forms).
export default `
move-path = place { $card } at { $at }
move-path_turned = place { $card } at { $at }, turned
move-action = play { $card }
move-action_on = play { $card } on { $who }
move-action_on_tool = play { $card } on { $who } ({ $tool })
move-action_at = play { $card } at { $at }
move-keep = keep { $card }
move-discard_to_remove = discard { $cards } to remove { $card }
table-target = play { $card } on { $where }
table-also_discard = also discard { $card }
event-tool_broken = tool broken by { $by }: { $card } on { $target }

event-passed = { $n ->
    [one] passed by { $by }, discarding one card
   *[other] passed by { $by }, discarding { $n } cards
}
event-gold_drawn = { $n ->
    [one] { $by } drew one gold card
   *[other] { $by } drew { $n } gold cards
}
players-cards = { $n ->
    [one] one card
   *[other] { $n } cards
}, { $gold ->
    [one] one gold card
   *[other] { $gold } gold cards
}

event-action_cancelled = { $by } played { $card } on { $target }: { $removed } removed
board-goal_seen = goal at { $at }: face down, you saw { $card }
## Moves taken back: an undo asked for, and one done (the host's with a reason).
event-undo_requested = { $n ->
    [one] undo requested by { $by }: one move to take back
   *[other] undo requested by { $by }: { $n } moves to take back
}
event-undone = { $n ->
    [one] undone: one move taken back
   *[other] undone: { $n } moves taken back
}
event-undone_reason = { $n ->
    [one] undone: one move taken back ({ $reason })
   *[other] undone: { $n } moves taken back ({ $reason })
}
## How long ago a game under way last moved (lobby): $unit is now, minute, hour or day.
lobby-moved_ago = { $unit ->
    [now] just now
    [minute] { $n ->
        [one] a minute ago
       *[other] { $n } minutes ago
    }
    [hour] { $n ->
        [one] an hour ago
       *[other] { $n } hours ago
    }
   *[day] { $n ->
        [one] a day ago
       *[other] { $n } days ago
    }
}
`;
