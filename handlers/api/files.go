package api

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"mime/multipart"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/auth/place"
	"github.com/sluice/sluice/blobs"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/extract"
	"github.com/sluice/sluice/formats"
	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/store"
)

// MaxUpload is the largest file Sluice accepts.
const MaxUpload = 1 << 30

// FileStore is what the file handlers need.
type FileStore interface {
	GetSpace(ctx context.Context, accountID, id string) (*model.Space, error)
	CreateFile(ctx context.Context, f *model.File, actor string) error
	GetFile(ctx context.Context, accountID, id string) (*model.File, error)
	ListFiles(ctx context.Context, f store.FileFilter) ([]*model.File, int, error)
	GetWorkbook(ctx context.Context, accountID, id string) (*model.Workbook, error)
	SaveFile(ctx context.Context, f *model.File, actor string) error
	DeleteFile(ctx context.Context, f *model.File, actor string) error
	GetEnvironment(ctx context.Context, accountID, id string) (*model.Environment, error)
}

// Extractor starts the extraction job of an upload.
type Extractor interface {
	StartExtraction(ctx context.Context, f *model.File, actor string) error
}

// Files serves /v1/files.
type Files struct {
	store   FileStore
	extract Extractor
	blobs   blobs.Store
}

// NewFiles returns the file handlers; uploads' bytes are kept in b.
func NewFiles(s FileStore, x Extractor, b blobs.Store) *Files {
	return &Files{store: s, extract: x, blobs: b}
}

type fileJSON struct {
	ID            string          `json:"id"`
	Name          string          `json:"name"`
	Ext           string          `json:"ext"`
	Mimetype      string          `json:"mimetype"`
	Encoding      string          `json:"encoding"`
	Status        string          `json:"status"`
	Mode          string          `json:"mode"`
	Origin        string          `json:"origin"`
	Size          int64           `json:"size"`
	BytesReceived int64           `json:"bytesReceived"`
	SpaceID       string          `json:"spaceId"`
	WorkbookID    string          `json:"workbookId,omitempty"`
	SheetID       string          `json:"sheetId,omitempty"`
	Description   string          `json:"description,omitempty"`
	Actions       json.RawMessage `json:"actions"`
	Treatments    []string        `json:"treatments"`
	CreatedAt     Time            `json:"createdAt"`
	UpdatedAt     Time            `json:"updatedAt"`
}

func toFileJSON(f *model.File) fileJSON {
	return fileJSON{ID: f.ID, Name: f.Name, Ext: f.Ext, Mimetype: f.Mimetype, Encoding: f.Encoding, Status: f.Status, Mode: f.Mode, Origin: f.Origin,
		Size: f.Size, BytesReceived: f.BytesReceived, SpaceID: f.SpaceID, WorkbookID: f.WorkbookID, SheetID: f.SheetID, Description: f.Description,
		Actions: f.Actions, Treatments: []string{}, CreatedAt: Time(f.CreatedAt), UpdatedAt: Time(f.UpdatedAt)}
}

var origins = map[string]bool{"filesystem": true, "googledrive": true, "box": true, "onedrive": true}

// upload is what the multipart form of POST /v1/files carried.
type upload struct {
	spaceID, environmentID, mode, origin, name, mimetype string
	size                                                 int64
	actions                                              []json.RawMessage
}

// Upload handles POST /v1/files (multipart: spaceId, environmentId, mode, file, actions…,
// origin). The file streams to disk; extraction runs as a job afterwards.
func (h *Files) Upload(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	_, params, err := mime.ParseMediaType(c.Get(fiber.HeaderContentType))
	if err != nil || params["boundary"] == "" {
		return errs.Invalidf("body", "Send the file as multipart/form-data")
	}
	// Read the body as a stream; c.Body() would pull the whole upload into memory.
	body := c.Context().RequestBodyStream()
	if body == nil {
		body = bytes.NewReader(c.Body())
	}
	id := store.NewFileID()
	tmp := filepath.Join(h.blobs.Staging(), id+".part")
	up, err := h.readForm(multipart.NewReader(body, params["boundary"]), tmp)
	// Read what follows the form (a chunked body's last chunk) so the connection stays in
	// step for the next request on it.
	_, _ = io.Copy(io.Discard, io.LimitReader(body, 1<<20))
	if err != nil {
		os.Remove(tmp)
		return err
	}
	f, err := h.newFile(ctxOf(c), p, up, id)
	if err == nil {
		err = h.blobs.Put(ctxOf(c), id, tmp)
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if err := h.store.CreateFile(ctxOf(c), f, p.ActorID); err != nil {
		_ = h.blobs.Remove(context.WithoutCancel(ctxOf(c)), id)
		return err
	}
	if f.Mode == "import" {
		agent, err := h.agentExtracts(ctxOf(c), f)
		if err != nil {
			return err
		}
		if !agent {
			if err := h.extract.StartExtraction(ctxOf(c), f, p.ActorID); err != nil {
				return err
			}
		}
	}
	return data(c, toFileJSON(f))
}

// agentExtracts reports whether the file's environment leaves files of its extension to an
// agent: metadata.agentExtractors lists the extensions an extractor plugin
// (@flatfile/plugin-xlsx-extractor and the like) takes over, so Sluice does not extract them
// as well — the file stays partial and file:created reaches the plugin.
func (h *Files) agentExtracts(ctx context.Context, f *model.File) (bool, error) {
	env, err := h.store.GetEnvironment(ctx, f.AccountID, f.EnvironmentID)
	if err != nil {
		return false, err
	}
	var meta struct {
		AgentExtractors []string `json:"agentExtractors"`
	}
	_ = json.Unmarshal(env.Metadata, &meta)
	for _, ext := range meta.AgentExtractors {
		if strings.EqualFold(strings.TrimPrefix(ext, "."), f.Ext) {
			return true, nil
		}
	}
	return false, nil
}

func (h *Files) newFile(ctx context.Context, p *auth.Principal, up *upload, id string) (*model.File, error) {
	if up.spaceID == "" {
		return nil, errs.Invalidf("spaceId", "spaceId is required")
	}
	sp, err := h.store.GetSpace(ctx, p.AccountID, up.spaceID)
	if err != nil {
		return nil, err
	}
	if err := auth.Can(p, auth.Write, place.Content(sp.AccountID, sp.EnvironmentID, sp.ID)); err != nil {
		return nil, err
	}
	if up.environmentID != "" && up.environmentID != sp.EnvironmentID {
		return nil, errs.Invalidf("environmentId", "environmentId does not match the space's environment")
	}
	actions, _ := json.Marshal(up.actions)
	if up.actions == nil {
		actions = []byte("[]")
	}
	f := &model.File{ID: id, AccountID: sp.AccountID, EnvironmentID: sp.EnvironmentID, SpaceID: sp.ID, Name: up.name, Ext: strings.TrimPrefix(strings.ToLower(filepath.Ext(up.name)), "."),
		Mimetype: up.mimetype, Encoding: "7bit", Status: model.FileStatusPartial, Mode: up.mode, Origin: up.origin, Size: up.size, BytesReceived: up.size, Actions: actions}
	if f.Mode == "export" {
		f.Status = model.FileStatusComplete
	}
	return f, nil
}

// An upload's form beside its file: spaceId, environmentId, mode, origin and a few actions.
const (
	maxFormFields = 100
	maxFormBytes  = 1 << 20
)

func (h *Files) readForm(mr *multipart.Reader, tmp string) (*upload, error) {
	up := &upload{mode: "import", origin: "filesystem"}
	gotFile := false
	fields, left := 0, int64(maxFormBytes) // what the fields beside the file may hold in all
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, errs.Invalidf("body", "The multipart body is malformed: %v", err)
		}
		name := part.FormName()
		if name == "file" {
			if gotFile {
				return nil, errs.Invalidf("file", "Send one file per upload")
			}
			gotFile = true
			up.name, up.mimetype = part.FileName(), part.Header.Get("Content-Type")
			if up.size, err = h.save(part, tmp); err != nil {
				return nil, err
			}
			continue
		}
		if fields++; fields > maxFormFields {
			return nil, errs.Invalidf("body", "The form has more than %d fields beside the file", maxFormFields)
		}
		val, err := io.ReadAll(io.LimitReader(part, left+1))
		if err != nil {
			return nil, errs.Invalidf(name, "Could not read form field %q", name)
		}
		if left -= int64(len(val)); left < 0 {
			return nil, errs.E(errs.TooLarge, name, "The form's fields beside the file hold more than %d KiB", maxFormBytes>>10)
		}
		if err := up.set(name, string(val)); err != nil {
			return nil, err
		}
	}
	if !gotFile {
		return nil, errs.Invalidf("file", "The form has no file part")
	}
	if up.name == "" {
		up.name = "upload"
	}
	return up, nil
}

func (up *upload) set(name, val string) error {
	switch name {
	case "spaceId":
		up.spaceID = val
	case "environmentId":
		up.environmentID = val
	case "mode":
		if val != "import" && val != "export" {
			return errs.Invalidf("mode", "mode must be import or export, got %q", val)
		}
		up.mode = val
	case "origin":
		if !origins[val] {
			return errs.Invalidf("origin", "origin must be filesystem, googledrive, box or onedrive, got %q", val)
		}
		up.origin = val
	case "actions":
		if !json.Valid([]byte(val)) || !strings.HasPrefix(strings.TrimSpace(val), "{") {
			return errs.Invalidf("actions", "Each actions part must be one JSON-encoded action")
		}
		up.actions = append(up.actions, json.RawMessage(val))
	}
	return nil
}

// save streams the file part to tmp, refusing files over MaxUpload.
func (h *Files) save(r io.Reader, tmp string) (int64, error) {
	if err := os.MkdirAll(h.blobs.Staging(), 0o700); err != nil {
		return 0, errs.Wrap(err, "files directory")
	}
	out, err := os.Create(tmp)
	if err != nil {
		return 0, errs.Wrap(err, "store upload")
	}
	n, err := io.Copy(out, io.LimitReader(r, MaxUpload+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, errs.Invalidf("file", "The upload broke off after %d bytes: %v", n, err)
	}
	if n > MaxUpload {
		return 0, errs.E(errs.TooLarge, "file", "The file is larger than the %d MiB limit", MaxUpload>>20)
	}
	return n, nil
}

func (h *Files) file(c *fiber.Ctx) (*auth.Principal, *model.File, error) {
	f, err := inReach(c, verbOf(c), h.store.GetFile, c.Params("fileId"))
	return PrincipalOf(c), f, err
}

// Get handles GET /v1/files/:fileId.
func (h *Files) Get(c *fiber.Ctx) error {
	_, f, err := h.file(c)
	if err != nil {
		return err
	}
	return data(c, toFileJSON(f))
}

// List handles GET /v1/files (spaceId, mode, pageSize 20, pageNumber).
func (h *Files) List(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	f := store.FileFilter{AccountID: p.AccountID, EnvironmentID: p.EnvironmentID, Mode: c.Query("mode")}
	var err error
	if _, f.SpaceID, err = listScope(c, auth.ResContent, "", c.Query("spaceId")); err != nil {
		return err
	}
	if f.Mode != "" && f.Mode != "import" && f.Mode != "export" {
		return errs.Invalidf("mode", "mode must be import or export")
	}
	if f.Page, err = page(c, 20, 1000); err != nil {
		return err
	}
	files, total, err := h.store.ListFiles(ctxOf(c), f)
	if err != nil {
		return err
	}
	out := make([]fileJSON, 0, len(files))
	for _, fl := range files {
		out = append(out, toFileJSON(fl))
	}
	return c.JSON(fiber.Map{"data": out, "pagination": model.NewPagination(f.Page, total)})
}

// Update handles PATCH /v1/files/:fileId (name, workbookId, mode, status, actions).
func (h *Files) Update(c *fiber.Ctx) error {
	p, f, err := h.file(c)
	if err != nil {
		return err
	}
	var in struct {
		Name       *string         `json:"name"`
		WorkbookID *string         `json:"workbookId"`
		Mode       *string         `json:"mode"`
		Status     *string         `json:"status"`
		Actions    json.RawMessage `json:"actions"`
	}
	if err := bind(c, &in); err != nil {
		return err
	}
	if err := rawArray("actions", in.Actions); err != nil {
		return err
	}
	if in.Name != nil {
		if strings.TrimSpace(*in.Name) == "" {
			return errs.Invalidf("name", "name cannot be empty")
		}
		f.Name = *in.Name
	}
	if in.WorkbookID != nil && *in.WorkbookID != "" {
		// The workbook a file names is one the caller may write, in the file's own space.
		w, err := inReach(c, auth.Write, h.store.GetWorkbook, *in.WorkbookID)
		if errs.Is(err, errs.NotFound) || (err == nil && w.SpaceID != f.SpaceID) {
			return errs.NotFoundf("workbookId", "Workbook %s is not in the file's space", *in.WorkbookID)
		}
		if err != nil {
			return err
		}
	}
	if in.WorkbookID != nil {
		f.WorkbookID = *in.WorkbookID
	}
	if in.Mode != nil {
		if *in.Mode != "import" && *in.Mode != "export" {
			return errs.Invalidf("mode", "mode must be import or export")
		}
		f.Mode = *in.Mode
	}
	if in.Status != nil {
		switch *in.Status {
		case model.FileStatusPartial, model.FileStatusAnalyzing, model.FileStatusAnalyzed, model.FileStatusComplete, model.FileStatusFailed, "archived", "purged":
			f.Status = *in.Status
		default:
			return errs.Invalidf("status", "Unknown file status %q", *in.Status)
		}
	}
	if len(in.Actions) > 0 {
		f.Actions = in.Actions
	}
	if err := h.store.SaveFile(ctxOf(c), f, p.ActorID); err != nil {
		return err
	}
	return data(c, toFileJSON(f))
}

// Delete handles DELETE /v1/files/:fileId; the bytes are removed too.
func (h *Files) Delete(c *fiber.Ctx) error {
	p, f, err := h.file(c)
	if err != nil {
		return err
	}
	if err := h.store.DeleteFile(ctxOf(c), f, p.ActorID); err != nil {
		return err
	}
	_ = h.blobs.Remove(ctxOf(c), f.ID)
	return success(c)
}

// Download handles GET /v1/files/:fileId/download: the bytes as uploaded.
func (h *Files) Download(c *fiber.Ctx) error {
	_, f, err := h.file(c)
	if err != nil {
		return err
	}
	fh, err := h.blobs.Open(c.Context(), f.ID) // read after the handler returns: not under its deadline
	if errors.Is(err, fs.ErrNotExist) {
		return errs.NotFoundf("fileId", "The file's content is gone")
	}
	if err != nil {
		return errs.Wrap(err, "open upload")
	}
	ct := f.Mimetype
	if ct == "" {
		ct = fiber.MIMEOctetStream
	}
	c.Set(fiber.HeaderContentType, ct)
	c.Set(fiber.HeaderContentDisposition, fmt.Sprintf(`attachment; filename=%q`, f.Name))
	return c.SendStream(fh, int(fh.Size()))
}

// DetectHeader handles POST /v1/files/detect-header: which of the given rows is the header.
// headerRow is the number of rows to skip to reach the data (1 when the header is first).
func (h *Files) DetectHeader(c *fiber.Ctx) error {
	var in struct {
		Options struct {
			Algorithm    string   `json:"algorithm"`
			RowsToSearch int      `json:"rowsToSearch"`
			Headers      []string `json:"headers"`
			RowNumbers   []int    `json:"rowNumbers"`
		} `json:"options"`
		Data [][]string `json:"data"`
	}
	if err := bind(c, &in); err != nil {
		return err
	}
	switch {
	case len(in.Data) == 0:
		return errs.Invalidf("data", "data must hold the file's first rows: an array of at least one row of strings")
	case in.Options.RowsToSearch < 0:
		return errs.Invalidf("options.rowsToSearch", "options.rowsToSearch must be 0 (all rows) or more")
	case in.Options.Algorithm == "specificRows" && (len(in.Options.RowNumbers) == 0 || in.Options.RowNumbers[0] < 0 || in.Options.RowNumbers[0] >= len(in.Data)):
		return errs.Invalidf("options.rowNumbers", "options.rowNumbers must name a row of data (0 to %d)", len(in.Data)-1)
	case !slices.Contains([]string{"", "default", "aiDetection", "dataRowAndSubHeaderDetection", "explicitHeaders", "specificRows"}, in.Options.Algorithm):
		return errs.Invalidf("options.algorithm", "options.algorithm must be default, aiDetection, dataRowAndSubHeaderDetection, explicitHeaders or specificRows")
	}
	rows := in.Data
	if n := in.Options.RowsToSearch; n > 0 && n < len(rows) {
		rows = rows[:n]
	}
	idx, header := extract.DetectHeader(rows)
	switch in.Options.Algorithm {
	case "explicitHeaders":
		idx, header = -1, in.Options.Headers
	case "specificRows":
		idx = in.Options.RowNumbers[0]
		_, header = extract.DetectHeader(in.Data[idx : idx+1])
	}
	idx = min(max(idx, -1), len(in.Data)-1)
	if header == nil {
		header = []string{}
	}
	letters := make([]string, len(header))
	cols := make([]formats.Column, len(header))
	for i := range letters {
		letters[i] = columnLetter(i)
	}
	// How the rows below the header read, column by column: the same counts an
	// uploaded file's columns get, so an agent can see a date order or decimal separator
	// before it maps anything.
	for _, row := range in.Data[idx+1:] {
		for i := range min(len(row), len(cols)) {
			cols[i].Add(row[i])
		}
	}
	readings := make([][]formats.Reading, len(cols))
	for i := range cols {
		readings[i] = cols[i].Readings()
	}
	return data(c, fiber.Map{"header": header, "headerRow": idx + 1, "letters": letters, "formats": readings})
}

// columnLetter is a spreadsheet column name: A, B, …, Z, AA, AB, …
func columnLetter(i int) string {
	s := ""
	for i++; i > 0; i = (i - 1) / 26 {
		s = string(rune('A'+(i-1)%26)) + s
	}
	return s
}
