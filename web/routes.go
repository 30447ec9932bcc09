package web

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/blobs"
	"github.com/sluice/sluice/handlers/api"
	"github.com/sluice/sluice/ingest"
	"github.com/sluice/sluice/jobs"
	"github.com/sluice/sluice/mail"
)

// routes is the whole HTTP surface of Sluice, one line per route.
func routes(app *fiber.App, d Deps) {
	authH := api.NewAuth(d.Store, d.Tokens)
	authH.Limiter = &auth.Limiter{Store: d.Store}
	accounts := api.NewAccounts(d.Store)
	environments := api.NewEnvironments(d.Store)
	platform := api.NewPlatform(d.Store, d.Tokens)
	spaces := api.NewSpaces(d.Store, d.Tokens)
	events := api.NewEvents(d.Store)
	workbooks := api.NewWorkbooks(d.Store)
	sheets := api.NewSheets(d.Store)
	commits := api.NewCommits(d.Store)
	documents := api.NewDocuments(d.Store)
	export := api.NewExport(d.Store)
	mappings := api.NewMapping(d.Store)
	apps := api.NewApps(d.Store)
	mailer, err := mail.New(d.Store, d.SMTP)
	if err != nil {
		panic(err) // the templates are embedded: this is a build error
	}
	users := api.NewUsers(d.Store, mailer, d.BaseURL)
	clips := api.NewDataClips(d.Store, d.Tokens, d.Sealer, d.BaseURL)
	if d.ClipLinkTTL > 0 {
		clips.LinkTTL = d.ClipLinkTTL
	}
	instructions := api.NewInstructions(d.Store)
	secrets := api.NewSecrets(d.Store, d.Sealer)
	guests := api.NewGuests(d.Store, d.Tokens, d.BaseURL)
	guests.SetMailer(mailer)
	views := api.NewViews(d.Store)
	jobSvc, ingestSvc := d.Jobs, d.Ingest
	if jobSvc == nil {
		jobSvc = jobs.New(d.Store, d.Store)
	}
	if ingestSvc == nil {
		ingestSvc = &ingest.Service{DB: d.Store, Jobs: jobSvc, Blobs: blobs.For(d.Store, d.FilesDir)}
	}
	jobsH := api.NewJobs(jobSvc, d.Store)
	plans := api.NewPlans(jobsH, ingestSvc)
	actions := api.NewActions(d.Store, jobSvc)
	stream := api.NewStream(d.Store, d.Events, d.StreamHeartbeat)
	stream.Recheck = func(ctx context.Context, token string) error { _, err := d.Auth.Authenticate(ctx, token); return err }
	agents := api.NewAgents(d.Store, d.AllowPrivateWebhooks)
	need := bearer(d.Auth)
	files := api.NewFiles(d.Store, ingestSvc, ingestSvc.Blobs)

	app.Get("/healthz", health(d))

	// Token exchange: the spec's address and the one the client uses.
	app.Post("/api/v1/auth", limitBody, authH.Exchange)
	app.Post("/v1/auth", limitBody, authH.Exchange)

	// The browser SDKs' space init: a publishable key in the query, JSON sent as text/plain.
	embed := api.NewEmbed(d.Store, d.Tokens, d.BaseURL)
	gate := originGate(allowlist{d.Store}, d.BaseURL)
	app.Post("/v1/internal/spaces/init", gate, newInitThrottle(InitsPerMinute).handler, embed.Init) // and a 1 MiB body

	// Uploads stream up to 1 GiB, so they skip the 10 MiB cap of the JSON routes.
	idem := newIdempotency(d.Store, d.Sealer, d.Process, d.NodeTimeout)
	app.Post("/v1/files", need, can(auth.AreaSpaceData), idem.handler(false), files.Upload).Name(string(auth.AreaSpaceData))

	v1 := app.Group("/v1", need, gate, deadline(d.QueryTimeout, d.WriteTimeout), fairShare(FairShare), limitBody, gunzip, idem.handler(true)) // the token before any byte of the body
	v := guarded{r: v1, audit: auditor{d.Store}}
	v.get(auth.AreaEnvironment, "/auth/api-keys", authH.ListKeys)
	v.get(auth.AreaPATs, "/auth/personal-access-tokens", authH.ListPATs)
	v.post(auth.AreaPATs, "/auth/personal-access-tokens", authH.CreatePAT)
	v.delete(auth.AreaPATs, "/auth/personal-access-tokens/:accessTokenId", authH.DeletePAT)
	v.get(auth.AreaAccountRead, "/accounts/current", accounts.Get)
	v.patch(auth.AreaAccountManage, "/accounts/current", accounts.Update)

	v.get(auth.AreaEnvironment, "/environments", environments.List)
	v.get(auth.AreaSpaceData, "/entitlements", platform.Entitlements)
	v.get(auth.AreaSpaceData, "/subscription", platform.Subscription)
	v.get(auth.AreaEnvironment, "/data-retention-policies", platform.RetentionPolicies)
	v.post(auth.AreaEnvManage, "/environments", environments.Create)
	v.get(auth.AreaEnvironment, "/environments/:environmentId", environments.Get)
	v.patch(auth.AreaEnvironment, "/environments/:environmentId", environments.Update)
	v.delete(auth.AreaEnvManage, "/environments/:environmentId", environments.Delete)

	v.get(auth.AreaSpaceData, "/spaces", spaces.List)
	v.post(auth.AreaSpaceCreate, "/spaces", spaces.Create)
	v.get(auth.AreaSpaceData, "/spaces/:spaceId", spaces.Get)
	v.patch(auth.AreaSpaceData, "/spaces/:spaceId", spaces.Update)
	v.delete(auth.AreaSpaceData, "/spaces/:spaceId", spaces.Delete)
	v.post(auth.AreaSpaceData, "/spaces/:spaceId/archive", spaces.Archive)
	v.post(auth.AreaSpaceData, "/spaces/:spaceId/unarchive", spaces.Unarchive)
	v.get(auth.AreaSpaceData, "/spaces/:spaceId/documents", documents.List)
	v.post(auth.AreaSpaceData, "/spaces/:spaceId/documents", documents.Create)
	v.get(auth.AreaSpaceData, "/spaces/:spaceId/documents/:documentId", documents.Get)
	v.patch(auth.AreaSpaceData, "/spaces/:spaceId/documents/:documentId", documents.Update)
	v.delete(auth.AreaSpaceData, "/spaces/:spaceId/documents/:documentId", documents.Delete)
	app.Get("/spaces/:spaceId", need, can(auth.AreaSpaceData), limitBody, spaces.Get)
	app.Patch("/spaces/:spaceId", need, can(auth.AreaSpaceData), limitBody, gunzip, spaces.Update)

	// -- jobs, actions, agents, event stream --
	// (above /events/:eventId, which would otherwise take "stream" for an id)
	v.get(auth.AreaSpaceData, "/events/stream", stream.Serve)
	v.get(auth.AreaSpaceData, "/jobs", jobsH.List)
	v.post(auth.AreaSpaceData, "/jobs", jobsH.Create)
	v.get(auth.AreaSpaceData, "/jobs/:jobId", jobsH.Get)
	v.get(auth.AreaSpaceData, "/jobs/:jobId/plan", plans.Get)
	v.patch(auth.AreaSpaceData, "/jobs/:jobId", jobsH.Update)
	v.delete(auth.AreaSpaceData, "/jobs/:jobId", jobsH.Delete)
	v.post(auth.AreaSpaceData, "/jobs/:jobId/execute", jobsH.Execute)
	v.post(auth.AreaSpaceData, "/jobs/:jobId/ack", jobsH.Ack)
	v.post(auth.AreaSpaceData, "/jobs/:jobId/outcome/ack", jobsH.AckOutcome)
	v.post(auth.AreaSpaceData, "/jobs/:jobId/complete", jobsH.Complete)
	v.post(auth.AreaSpaceData, "/jobs/:jobId/fail", jobsH.Fail)
	v.post(auth.AreaSpaceData, "/jobs/:jobId/cancel", jobsH.Cancel)
	v.post(auth.AreaSpaceData, "/jobs/:jobId/retry", jobsH.Retry)
	v.get(auth.AreaSpaceData, "/actions", actions.List)
	v.post(auth.AreaSpaceData, "/actions", actions.Create)
	v.post(auth.AreaSpaceData, "/actions/bulk", actions.BulkCreate)
	v.get(auth.AreaSpaceData, "/actions/:actionId", actions.Get)
	v.patch(auth.AreaSpaceData, "/actions/:actionId", actions.Update)
	v.delete(auth.AreaSpaceData, "/actions/:actionId", actions.Delete)
	v.post(auth.AreaSpaceData, "/actions/:actionId/run", actions.Run)
	v.get(auth.AreaEnvConfig, "/agents", agents.List)
	v.post(auth.AreaEnvConfig, "/agents", agents.Create)
	v.get(auth.AreaEnvConfig, "/agents/logs", agents.EnvironmentLogs)
	v.get(auth.AreaEnvConfig, "/agents/executions", agents.Executions)
	v.get(auth.AreaEnvConfig, "/agents/log/:eventId", agents.EventLog)
	v.get(auth.AreaEnvConfig, "/agents/:agentId", agents.Get)
	v.delete(auth.AreaEnvConfig, "/agents/:agentId", agents.Delete)
	v.get(auth.AreaEnvConfig, "/agents/:agentId/versions", agents.Versions)
	v.get(auth.AreaEnvConfig, "/agents/:agentId/versions/:agentVersionId/revert", agents.Revert)
	v.get(auth.AreaEnvConfig, "/agents/:agentId/logs", agents.AgentLogs)

	v.get(auth.AreaSpaceData, "/sheets/:sheetId/download", export.Download)
	v.get(auth.AreaSpaceData, "/files", files.List)
	v.post(auth.AreaSpaceData, "/files/detect-header", files.DetectHeader)
	v.get(auth.AreaSpaceData, "/files/:fileId", files.Get)
	v.patch(auth.AreaSpaceData, "/files/:fileId", files.Update)
	v.delete(auth.AreaSpaceData, "/files/:fileId", files.Delete)
	v.get(auth.AreaSpaceData, "/files/:fileId/download", files.Download)

	v.get(auth.AreaUsers, "/users", users.List)
	v.post(auth.AreaUsers, "/users/invite", users.Invite)
	v.post(auth.AreaEnvConfig, "/invitations", guests.Invite) // the client's guests.invite
	v.get(auth.AreaUsers, "/users/:userId", users.Get)
	v.patch(auth.AreaUsers, "/users/:userId", users.Update)
	v.delete(auth.AreaUsers, "/users/:userId", users.Delete)
	v.post(auth.AreaUsers, "/users/:userId/resend-invite", users.ResendInvite)
	v.get(auth.AreaAccountManage, "/outbox", users.Outbox)
	v.get(auth.AreaDataClips, "/data-clips", clips.List)
	v.post(auth.AreaDataClips, "/data-clips", clips.Create)
	v.get(auth.AreaDataClips, "/data-clips/:dataClipId", clips.Get)
	v.patch(auth.AreaDataClips, "/data-clips/:dataClipId", clips.Update)
	v.delete(auth.AreaDataClips, "/data-clips/:dataClipId", clips.Delete)
	v.post(auth.AreaDataClips, "/data-clips/:dataClipId/add-records", clips.AddRecords)
	v.get(auth.AreaEnvConfig, "/apps", apps.List)
	v.post(auth.AreaEnvConfig, "/apps", apps.Create)
	v.get(auth.AreaEnvConfig, "/apps/:appId", apps.Get)
	v.patch(auth.AreaEnvConfig, "/apps/:appId", apps.Update)
	v.delete(auth.AreaEnvConfig, "/apps/:appId", apps.Delete)
	v.get(auth.AreaEnvConfig, "/apps/:appId/constraints", apps.Constraints)
	v.post(auth.AreaEnvConfig, "/apps/:appId/constraints", apps.CreateConstraint)
	v.get(auth.AreaEnvConfig, "/apps/:appId/constraints/:constraintId", apps.Constraint)
	v.patch(auth.AreaEnvConfig, "/apps/:appId/constraints/:constraintId", apps.UpdateConstraint)
	v.delete(auth.AreaEnvConfig, "/apps/:appId/constraints/:constraintId", apps.DeleteConstraint)
	v.get(auth.AreaEnvConfig, "/apps/:appId/constraints/:constraintId/versions", apps.ConstraintVersions)
	v.get(auth.AreaEnvConfig, "/apps/:appId/constraints/:constraintId/versions/:version", apps.ConstraintVersion)
	v.get(auth.AreaSpaceData, "/mapping", mappings.List)
	v.post(auth.AreaSpaceData, "/mapping", mappings.Create)
	v.delete(auth.AreaSpaceData, "/mapping", mappings.Forget)
	v.get(auth.AreaSpaceData, "/mapping/:programId", mappings.Get)
	v.patch(auth.AreaSpaceData, "/mapping/:programId", mappings.Update)
	v.delete(auth.AreaSpaceData, "/mapping/:programId", mappings.Delete)
	v.get(auth.AreaSpaceData, "/mapping/:programId/versions", mappings.Versions)
	v.get(auth.AreaSpaceData, "/mapping/:programId/rules", mappings.Rules)
	v.post(auth.AreaSpaceData, "/mapping/:programId/rules", mappings.AddRules)
	v.patch(auth.AreaSpaceData, "/mapping/:programId/rules", mappings.UpdateRules)
	v.delete(auth.AreaSpaceData, "/mapping/:programId/rules", mappings.DeleteRules)
	v.get(auth.AreaSpaceData, "/mapping/:programId/rules/:mappingId", mappings.Rule)
	v.patch(auth.AreaSpaceData, "/mapping/:programId/rules/:mappingId", mappings.UpdateRules)
	v.delete(auth.AreaSpaceData, "/mapping/:programId/rules/:mappingId", mappings.DeleteRules)

	v.post(auth.AreaSpaceData, "/instructions", instructions.Create)
	v.get(auth.AreaSpaceData, "/instructions/sheet/:sheetId", instructions.ForSheet)
	v.patch(auth.AreaSpaceData, "/instructions/:instructionId", instructions.Update)
	v.delete(auth.AreaSpaceData, "/instructions/:instructionId", instructions.Delete)

	v.get(auth.AreaSpaceData, "/views", views.List)
	v.post(auth.AreaSpaceData, "/views", views.Create)
	v.get(auth.AreaSpaceData, "/views/:viewId", views.Get)
	v.patch(auth.AreaSpaceData, "/views/:viewId", views.Update)
	v.delete(auth.AreaSpaceData, "/views/:viewId", views.Delete)

	v.get(auth.AreaEnvConfig, "/guests", guests.List)
	v.post(auth.AreaEnvConfig, "/guests", guests.Create)
	v.get(auth.AreaEnvConfig, "/guests/:guestId", guests.Get)
	v.patch(auth.AreaEnvConfig, "/guests/:guestId", guests.Update)
	v.delete(auth.AreaEnvConfig, "/guests/:guestId", guests.Delete)
	v.get(auth.AreaEnvConfig, "/guests/:guestId/token", guests.Token)

	v.get(auth.AreaEnvConfig, "/secrets", secrets.List)
	v.post(auth.AreaEnvConfig, "/secrets", secrets.Upsert)
	v.delete(auth.AreaEnvConfig, "/secrets/:secretId", secrets.Delete)

	v.get(auth.AreaSpaceData, "/events", events.List)
	v.post(auth.AreaSpaceData, "/events", events.Create)
	v.get(auth.AreaSpaceData, "/events/:eventId", events.Get)
	v.post(auth.AreaSpaceData, "/events/:eventId/ack", events.Ack)

	// -- workbooks, sheets, commits --
	v.get(auth.AreaSpaceData, "/workbooks", workbooks.List)
	v.post(auth.AreaSpaceData, "/workbooks", workbooks.Create)
	v.get(auth.AreaSpaceData, "/workbooks/:workbookId", workbooks.Get)
	v.patch(auth.AreaSpaceData, "/workbooks/:workbookId", workbooks.Update)
	v.delete(auth.AreaSpaceData, "/workbooks/:workbookId", workbooks.Delete)
	v.post(auth.AreaSpaceData, "/workbooks/:workbookId/rebuild", workbooks.Rebuild)
	v.get(auth.AreaSpaceData, "/workbooks/:workbookId/commits", workbooks.Commits)
	v.get(auth.AreaSpaceData, "/sheets", sheets.List)
	v.get(auth.AreaSpaceData, "/sheets/:sheetId", sheets.Get)
	v.patch(auth.AreaSpaceData, "/sheets/:sheetId", sheets.Update)
	v.delete(auth.AreaSpaceData, "/sheets/:sheetId", sheets.Delete)
	v.post(auth.AreaSpaceData, "/sheets/:sheetId/lock", sheets.Lock)
	v.post(auth.AreaSpaceData, "/sheets/:sheetId/unlock", sheets.Unlock)
	v.post(auth.AreaSpaceData, "/sheets/:sheetId/fields", sheets.AddField)
	v.delete(auth.AreaSpaceData, "/sheets/:sheetId/fields/:fieldKey", sheets.RemoveField)
	v.get(auth.AreaSpaceData, "/sheets/:sheetId/commits", sheets.Commits)
	v.get(auth.AreaSpaceData, "/commits/:commitId", commits.Get)
	v.post(auth.AreaSpaceData, "/commits/:commitId/complete", commits.Complete)
	v.post(auth.AreaSpaceData, "/commits/:commitId/replay", commits.Replay)

	// -- records, counts, find-replace, snapshots --
	recs, snaps := api.NewRecords(d.Store), api.NewSnapshots(d.Store)
	v.get(auth.AreaSpaceData, "/sheets/:sheetId/records", recs.Get)
	v.get(auth.AreaSpaceData, "/sheets/:sheetId/cells", recs.Cells)
	v.post(auth.AreaSpaceData, "/sheets/:sheetId/records", recs.Insert)
	v.put(auth.AreaSpaceData, "/sheets/:sheetId/records", recs.Update)
	v.delete(auth.AreaSpaceData, "/sheets/:sheetId/records", recs.Delete)
	v.patch(auth.AreaSpaceData, "/sheets/:sheetId/records/bulk-update", recs.BulkUpdate)
	v.get(auth.AreaSpaceData, "/sheets/:sheetId/counts", recs.Counts)
	v.put(auth.AreaSpaceData, "/sheets/:sheetId/find-replace", recs.FindReplace)
	v.post(auth.AreaSpaceData, "/sheets/:sheetId/fields/:fieldKey/clear", recs.ClearColumn)
	v.post(auth.AreaSpaceData, "/snapshots", snaps.Create)
	v.get(auth.AreaSpaceData, "/snapshots", snaps.List)
	v.get(auth.AreaSpaceData, "/snapshots/:snapshotId", snaps.Get)
	v.delete(auth.AreaSpaceData, "/snapshots/:snapshotId", snaps.Delete)
	v.post(auth.AreaSpaceData, "/snapshots/:snapshotId/restore", snaps.Restore)
	v.get(auth.AreaSpaceData, "/snapshots/:snapshotId/records", snaps.Records)

	v1.Use(func(c *fiber.Ctx) error { return fiber.ErrNotFound })

	uiRoutes(app, d, files, ingestSvc, jobSvc, mailer)
}

// guarded registers /v1 routes behind the permission table: each route names its area
// (auth.Policy), which both guards it and labels it for the authorization-matrix test.
type guarded struct {
	r     fiber.Router
	audit auditor
}

func (g guarded) add(method string, a auth.Area, path string, h fiber.Handler) {
	chain := []fiber.Handler{can(a), h}
	// A space's settings (its theme, languages, guest access) are administration too.
	spaceSettings := path == "/spaces/:spaceId" && method != fiber.MethodGet
	if (audited(a) || spaceSettings) && method != fiber.MethodGet {
		chain = append([]fiber.Handler{g.audit.api(a)}, chain...) // refused attempts are recorded too
	}
	g.r.Add(method, path, chain...).Name(string(a))
}
func (g guarded) get(a auth.Area, path string, h fiber.Handler)  { g.add(fiber.MethodGet, a, path, h) }
func (g guarded) post(a auth.Area, path string, h fiber.Handler) { g.add(fiber.MethodPost, a, path, h) }
func (g guarded) put(a auth.Area, path string, h fiber.Handler)  { g.add(fiber.MethodPut, a, path, h) }
func (g guarded) patch(a auth.Area, path string, h fiber.Handler) {
	g.add(fiber.MethodPatch, a, path, h)
}
func (g guarded) delete(a auth.Area, path string, h fiber.Handler) {
	g.add(fiber.MethodDelete, a, path, h)
}

// can lets a request through when its principal may enter area a (auth.Allow).
func can(a auth.Area) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if err := auth.Allow(api.PrincipalOf(c), a); err != nil {
			return err
		}
		return c.Next()
	}
}

func health(d Deps) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if err := d.Store.Ping(c.Context()); err != nil {
			return c.Status(fiber.StatusServiceUnavailable).JSON(fiber.Map{"status": "unavailable"})
		}
		return c.JSON(fiber.Map{"status": "ok"})
	}
}
