-- A write that sends its statements with its commit on a guess (the common case: an insert
-- leaves every kept value list kept) fails the transaction through this when the guess was
-- wrong, under its own SQLSTATE; the store then writes again the careful way (sqldb.WriteAgain).
CREATE FUNCTION sluice_write_again(what text) RETURNS int LANGUAGE plpgsql VOLATILE PARALLEL SAFE AS $$
BEGIN
    RAISE EXCEPTION 'write again: %', what USING ERRCODE = 'SLW01';
END
$$;
