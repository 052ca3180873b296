-- Games are never deleted: their events refer to them.
CREATE TRIGGER games_no_delete BEFORE DELETE ON games
BEGIN
    SELECT RAISE(ABORT, 'games are never deleted: their events refer to them');
END;
