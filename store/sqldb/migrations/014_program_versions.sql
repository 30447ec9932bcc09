-- Every change of a mapping program's rules makes a new version holding the whole rule list,
-- so a transform job can run the program as it was (input.version).
CREATE TABLE mapping_program_versions (
    program_id TEXT NOT NULL REFERENCES mapping_programs(id),
    version    INTEGER NOT NULL,
    rules      TEXT NOT NULL,
    created_by TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    PRIMARY KEY (program_id, version)
) WITHOUT ROWID;
