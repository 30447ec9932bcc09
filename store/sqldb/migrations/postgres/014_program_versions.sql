-- PostgreSQL form of ../014_program_versions.sql (keep the two in step).
-- Every change of a mapping program's rules makes a new version holding the whole rule list,
-- so a transform job can run the program as it was (input.version).
CREATE TABLE mapping_program_versions (
    program_id TEXT NOT NULL REFERENCES mapping_programs(id),
    version    BIGINT NOT NULL,
    rules      TEXT NOT NULL,
    created_by TEXT NOT NULL DEFAULT '',
    created_at BIGINT NOT NULL,
    PRIMARY KEY (program_id, version)
);
