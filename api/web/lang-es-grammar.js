// Spanish (español): the sentences that name cards, and the forms each card's name takes in them, in
// Project Fluent (grammar.js reads them; docs/glossary.md lists the forms).
export default `
move-path = colocar { $card } en { $at }
move-path_turned = colocar { $card } en { $at }, girada
move-action = jugar { $card }
move-action_on = jugar { $card } sobre { $who }
move-action_on_tool = jugar { $card } sobre { $who } ({ $tool })
move-action_at = jugar { $card } en { $at }
move-keep = quedarse con { $card }
move-discard_to_remove = descartar { $cards } para quitar { $card }
table-target = jugar { $card } sobre { $where }
table-also_discard = descartar también { $card }
event-tool_broken = herramienta rota por { $by }: { $card } sobre { $target }

event-passed = { $n ->
    [one] { $by } pasó, descartando una carta
   *[other] { $by } pasó, descartando { $n } cartas
}
event-gold_drawn = { $n ->
    [one] { $by } robó una carta de oro
   *[other] { $by } robó { $n } cartas de oro
}
players-cards = { $n ->
    [one] una carta
   *[other] { $n } cartas
}, { $gold ->
    [one] una carta de oro
   *[other] { $gold } cartas de oro
}

event-action_cancelled = { $by } jugó { $card } sobre { $target }: se quitó { $removed }
board-goal_seen = meta en { $at }: boca abajo, viste { $card }
## Jugadas deshechas: una petición de deshacer, y lo deshecho (por el anfitrión, con un motivo).
event-undo_requested = { $n ->
    [one] { $by } pide deshacer una jugada
   *[other] { $by } pide deshacer { $n } jugadas
}
event-undone = { $n ->
    [one] deshecho: se anula una jugada
   *[other] deshecho: se anulan { $n } jugadas
}
event-undone_reason = { $n ->
    [one] deshecho: se anula una jugada ({ $reason })
   *[other] deshecho: se anulan { $n } jugadas ({ $reason })
}
## How long ago a game under way last moved (lobby): $unit is now, minute, hour or day.
lobby-moved_ago = { $unit ->
    [now] ahora mismo
    [minute] { $n ->
        [one] hace un minuto
       *[other] hace { $n } minutos
    }
    [hour] { $n ->
        [one] hace una hora
       *[other] hace { $n } horas
    }
   *[day] { $n ->
        [one] hace un día
       *[other] hace { $n } días
    }
}
`;
