-- What each column of an extracted sheet can be read as: counts over every value,
-- kept when the file is read, so the import wizard and map jobs know each column's date
-- order and decimal separator without reading the sheet again.
CREATE TABLE column_formats (
    sheet_id TEXT PRIMARY KEY,
    columns  TEXT NOT NULL -- JSON: {fieldKey: formats.Column}
);
