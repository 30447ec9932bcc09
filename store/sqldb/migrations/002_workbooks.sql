-- Commits: units of change on a workbook's sheets. The id is also the version id stamped on
-- the records a commit wrote.
CREATE TABLE commits (
    id           TEXT PRIMARY KEY,
    sheet_id     TEXT NOT NULL,
    workbook_id  TEXT NOT NULL,
    created_by   TEXT NOT NULL DEFAULT '',
    completed_by TEXT NOT NULL DEFAULT '',
    created_at   INTEGER NOT NULL,
    completed_at INTEGER
);
CREATE INDEX commits_workbook ON commits(workbook_id, created_at);
CREATE INDEX commits_sheet ON commits(sheet_id, created_at);
CREATE INDEX commits_pending ON commits(workbook_id) WHERE completed_at IS NULL;

-- Workbook sheet order for sheetSidebarOrder ties and stable listing.
CREATE INDEX sheets_workbook_position ON sheets(workbook_id, position);
