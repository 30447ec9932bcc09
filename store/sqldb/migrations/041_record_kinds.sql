-- The kinds of token in a record's stored values a search's first pass could match where no
-- value's text does (record_encoding.go, kinds): a search trusts that pass for records without
-- them. NULL for records written before: every kind assumed, so they are tested field by field.
ALTER TABLE records ADD COLUMN kinds INTEGER;
-- With no records yet there is nothing to fill in (FillRecordKinds reads this setting).
INSERT INTO settings (key, value) SELECT 'record_kinds_filled', '1' WHERE NOT EXISTS (SELECT 1 FROM records);
