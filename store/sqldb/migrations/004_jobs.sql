-- Jobs, actions, agents and webhook deliveries.
-- Times are Unix milliseconds (UTC). JSON columns hold text; NULL means "absent".

CREATE TABLE jobs (
    id                      TEXT PRIMARY KEY,
    account_id              TEXT NOT NULL,
    environment_id          TEXT NOT NULL,
    space_id                TEXT NOT NULL DEFAULT '',
    -- The resources the job concerns, derived from source/destination for filters and event context.
    workbook_id             TEXT NOT NULL DEFAULT '',
    sheet_id                TEXT NOT NULL DEFAULT '',
    file_id                 TEXT NOT NULL DEFAULT '',
    document_id             TEXT NOT NULL DEFAULT '',
    type                    TEXT NOT NULL,
    operation               TEXT NOT NULL,
    source                  TEXT NOT NULL,
    destination             TEXT NOT NULL DEFAULT '',
    config                  TEXT,
    trigger                 TEXT NOT NULL DEFAULT 'manual',
    status                  TEXT NOT NULL,
    progress                REAL NOT NULL DEFAULT 0,
    mode                    TEXT NOT NULL DEFAULT '',
    input                   TEXT,
    subject                 TEXT,
    outcome                 TEXT,
    result                  TEXT,
    info                    TEXT NOT NULL DEFAULT '',
    managed                 INTEGER NOT NULL DEFAULT 0,
    part                    INTEGER,
    part_data               TEXT,
    part_execution          TEXT NOT NULL DEFAULT '',
    parent_id               TEXT NOT NULL DEFAULT '',
    predecessor_ids         TEXT NOT NULL DEFAULT '[]',
    metadata                TEXT NOT NULL DEFAULT '{}',
    action_id               TEXT NOT NULL DEFAULT '',
    created_by              TEXT NOT NULL DEFAULT '',
    estimated_completion_at INTEGER,
    dispatched_at           INTEGER,  -- when job:ready was last emitted
    started_at              INTEGER,
    last_ack_at             INTEGER,  -- the ack clock of an executing job; survives restarts
    finished_at             INTEGER,
    outcome_acknowledged_at INTEGER,
    created_at              INTEGER NOT NULL,
    updated_at              INTEGER NOT NULL,
    deleted_at              INTEGER
);
CREATE INDEX jobs_environment ON jobs(environment_id, created_at);
CREATE INDEX jobs_space ON jobs(space_id, created_at);
CREATE INDEX jobs_parent ON jobs(parent_id) WHERE parent_id <> '';
CREATE INDEX jobs_workbook ON jobs(workbook_id) WHERE workbook_id <> '';
-- The timers look only at unfinished jobs.
CREATE INDEX jobs_unfinished ON jobs(status, created_at)
    WHERE status NOT IN ('complete', 'failed', 'canceled') AND deleted_at IS NULL;

-- predecessorIds, indexed from the predecessor's side so a finishing job finds its dependents.
CREATE TABLE job_predecessors (
    predecessor_id TEXT NOT NULL,
    job_id         TEXT NOT NULL,
    PRIMARY KEY (predecessor_id, job_id)
) WITHOUT ROWID;

CREATE TABLE actions (
    id             TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL,
    environment_id TEXT NOT NULL,
    space_id       TEXT NOT NULL,
    target_id      TEXT NOT NULL,
    target_type    TEXT NOT NULL,  -- space | workbook | sheet | file | document
    workbook_id    TEXT NOT NULL DEFAULT '',
    operation      TEXT NOT NULL DEFAULT '',
    config         TEXT NOT NULL,  -- the whole Action as sent (label, mode, inputForm, …)
    created_by     TEXT NOT NULL DEFAULT '',
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    deleted_at     INTEGER
);
CREATE INDEX actions_space ON actions(space_id, created_at);
CREATE INDEX actions_target ON actions(target_id, operation);

CREATE TABLE agents (
    id             TEXT PRIMARY KEY,
    account_id     TEXT NOT NULL,
    environment_id TEXT NOT NULL,
    slug           TEXT NOT NULL DEFAULT '',
    url            TEXT NOT NULL DEFAULT '',  -- webhook target; empty for agents run elsewhere
    config         TEXT NOT NULL,             -- AgentConfig: topics, compiler, source, sourceMap, options, …
    version        INTEGER NOT NULL DEFAULT 1,
    created_by     TEXT NOT NULL DEFAULT '',
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL,
    deleted_at     INTEGER
);
CREATE INDEX agents_environment ON agents(environment_id, created_at);
CREATE INDEX agents_webhooks ON agents(environment_id) WHERE url <> '' AND deleted_at IS NULL;

CREATE TABLE agent_versions (
    id         TEXT PRIMARY KEY,
    agent_id   TEXT NOT NULL REFERENCES agents(id),
    version    INTEGER NOT NULL,
    origin     INTEGER NOT NULL,  -- the version this one was made from (itself unless a revert)
    config     TEXT NOT NULL,
    url        TEXT NOT NULL DEFAULT '',
    created_at INTEGER NOT NULL,
    UNIQUE (agent_id, version)
);

-- One row per (webhook agent, event): the outbox of signed POSTs and the agent's log.
CREATE TABLE deliveries (
    id              TEXT PRIMARY KEY,
    agent_id        TEXT NOT NULL,
    account_id      TEXT NOT NULL,
    environment_id  TEXT NOT NULL,
    space_id        TEXT NOT NULL DEFAULT '',
    event_id        TEXT NOT NULL,
    event_seq       INTEGER NOT NULL,
    topic           TEXT NOT NULL,
    url             TEXT NOT NULL,
    status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_status     INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT NOT NULL DEFAULT '',
    duration_ms     INTEGER NOT NULL DEFAULT 0,
    next_attempt_at INTEGER,
    created_at      INTEGER NOT NULL,
    completed_at    INTEGER,
    UNIQUE (agent_id, event_id)
);
CREATE INDEX deliveries_due ON deliveries(next_attempt_at) WHERE status = 'pending';
CREATE INDEX deliveries_agent ON deliveries(agent_id, created_at);
CREATE INDEX deliveries_environment ON deliveries(environment_id, created_at);
