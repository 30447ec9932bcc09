package web

import (
	"github.com/gofiber/fiber/v2"
	"github.com/sluice/sluice/ingest"

	"github.com/sluice/sluice/handlers/api"
	"github.com/sluice/sluice/jobs"
	"github.com/sluice/sluice/mail"
)

// routes is the whole HTTP surface of Sluice, one line per route.
func routes(app *fiber.App, d Deps) {
	authH := api.NewAuth(d.Store, d.Tokens)
	accounts := api.NewAccounts(d.Store)
	environments := api.NewEnvironments(d.Store)
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
	clips := api.NewDataClips(d.Store, d.Tokens, d.BaseURL)
	instructions := api.NewInstructions(d.Store)
	secrets := api.NewSecrets(d.Store, d.Sealer)
	guests := api.NewGuests(d.Store, d.Tokens, d.BaseURL)
	guests.SetMailer(mailer)
	views := api.NewViews(d.Store)
	jobSvc := jobs.New(d.Store, d.Store)
	jobsH := api.NewJobs(jobSvc, d.Store)
	ingestSvc := &ingest.Service{DB: d.Store, Jobs: jobSvc, Dir: d.FilesDir}
	plans := api.NewPlans(jobsH, ingestSvc)
	actions := api.NewActions(d.Store, jobSvc)
	stream := api.NewStream(d.Store, d.Events, d.StreamHeartbeat)
	agents := api.NewAgents(d.Store)
	need := bearer(d.Auth)
	files := api.NewFiles(d.Store, ingestSvc, d.FilesDir)

	app.Get("/healthz", health(d))

	// Token exchange: the spec's address and the one the client uses.
	app.Post("/api/v1/auth", limitBody, authH.Exchange)
	app.Post("/v1/auth", limitBody, authH.Exchange)

	// Uploads stream up to 1 GiB, so they skip the 10 MiB cap of the JSON routes.
	app.Post("/v1/files", need, files.Upload)

	v1 := app.Group("/v1", need, limitBody, gunzip) // the token before any byte of the body
	v1.Get("/auth/api-keys", authH.ListKeys)
	v1.Get("/auth/personal-access-tokens", authH.ListPATs)
	v1.Post("/auth/personal-access-tokens", authH.CreatePAT)
	v1.Delete("/auth/personal-access-tokens/:accessTokenId", authH.DeletePAT)
	v1.Get("/accounts/current", accounts.Get)
	v1.Patch("/accounts/current", accounts.Update)

	v1.Get("/environments", environments.List)
	v1.Post("/environments", environments.Create)
	v1.Get("/environments/:environmentId", environments.Get)
	v1.Patch("/environments/:environmentId", environments.Update)
	v1.Delete("/environments/:environmentId", environments.Delete)

	v1.Get("/spaces", spaces.List)
	v1.Post("/spaces", spaces.Create)
	v1.Get("/spaces/:spaceId", spaces.Get)
	v1.Patch("/spaces/:spaceId", spaces.Update)
	v1.Delete("/spaces/:spaceId", spaces.Delete)
	v1.Post("/spaces/:spaceId/archive", spaces.Archive)
	v1.Post("/spaces/:spaceId/unarchive", spaces.Unarchive)
	v1.Get("/spaces/:spaceId/documents", documents.List)
	v1.Post("/spaces/:spaceId/documents", documents.Create)
	v1.Get("/spaces/:spaceId/documents/:documentId", documents.Get)
	v1.Patch("/spaces/:spaceId/documents/:documentId", documents.Update)
	v1.Delete("/spaces/:spaceId/documents/:documentId", documents.Delete)
	app.Get("/spaces/:spaceId", need, limitBody, spaces.Get)
	app.Patch("/spaces/:spaceId", need, limitBody, gunzip, spaces.Update)

	// -- jobs, actions, agents, event stream (issue 4) --
	// (above /events/:eventId, which would otherwise take "stream" for an id)
	v1.Get("/events/stream", stream.Serve)
	v1.Get("/jobs", jobsH.List)
	v1.Post("/jobs", jobsH.Create)
	v1.Get("/jobs/:jobId", jobsH.Get)
	v1.Get("/jobs/:jobId/plan", plans.Get)
	v1.Patch("/jobs/:jobId", jobsH.Update)
	v1.Delete("/jobs/:jobId", jobsH.Delete)
	v1.Post("/jobs/:jobId/execute", jobsH.Execute)
	v1.Post("/jobs/:jobId/ack", jobsH.Ack)
	v1.Post("/jobs/:jobId/outcome/ack", jobsH.AckOutcome)
	v1.Post("/jobs/:jobId/complete", jobsH.Complete)
	v1.Post("/jobs/:jobId/fail", jobsH.Fail)
	v1.Post("/jobs/:jobId/cancel", jobsH.Cancel)
	v1.Post("/jobs/:jobId/retry", jobsH.Retry)
	v1.Get("/actions", actions.List)
	v1.Post("/actions", actions.Create)
	v1.Post("/actions/bulk", actions.BulkCreate)
	v1.Get("/actions/:actionId", actions.Get)
	v1.Patch("/actions/:actionId", actions.Update)
	v1.Delete("/actions/:actionId", actions.Delete)
	v1.Post("/actions/:actionId/run", actions.Run)
	v1.Get("/agents", agents.List)
	v1.Post("/agents", agents.Create)
	v1.Get("/agents/logs", agents.EnvironmentLogs)
	v1.Get("/agents/executions", agents.Executions)
	v1.Get("/agents/log/:eventId", agents.EventLog)
	v1.Get("/agents/:agentId", agents.Get)
	v1.Delete("/agents/:agentId", agents.Delete)
	v1.Get("/agents/:agentId/versions", agents.Versions)
	v1.Get("/agents/:agentId/versions/:agentVersionId/revert", agents.Revert)
	v1.Get("/agents/:agentId/logs", agents.AgentLogs)

	v1.Get("/sheets/:sheetId/download", export.Download)
	v1.Get("/files", files.List)
	v1.Post("/files/detect-header", files.DetectHeader)
	v1.Get("/files/:fileId", files.Get)
	v1.Patch("/files/:fileId", files.Update)
	v1.Delete("/files/:fileId", files.Delete)
	v1.Get("/files/:fileId/download", files.Download)

	v1.Get("/users", users.List)
	v1.Post("/users/invite", users.Invite)
	v1.Post("/invitations", guests.Invite) // the client's guests.invite
	v1.Get("/users/:userId", users.Get)
	v1.Patch("/users/:userId", users.Update)
	v1.Delete("/users/:userId", users.Delete)
	v1.Post("/users/:userId/resend-invite", users.ResendInvite)
	v1.Get("/outbox", users.Outbox)
	v1.Get("/data-clips", clips.List)
	v1.Post("/data-clips", clips.Create)
	v1.Get("/data-clips/:dataClipId", clips.Get)
	v1.Patch("/data-clips/:dataClipId", clips.Update)
	v1.Delete("/data-clips/:dataClipId", clips.Delete)
	v1.Post("/data-clips/:dataClipId/add-records", clips.AddRecords)
	v1.Get("/apps", apps.List)
	v1.Post("/apps", apps.Create)
	v1.Get("/apps/:appId", apps.Get)
	v1.Patch("/apps/:appId", apps.Update)
	v1.Delete("/apps/:appId", apps.Delete)
	v1.Get("/apps/:appId/constraints", apps.Constraints)
	v1.Post("/apps/:appId/constraints", apps.CreateConstraint)
	v1.Get("/apps/:appId/constraints/:constraintId", apps.Constraint)
	v1.Patch("/apps/:appId/constraints/:constraintId", apps.UpdateConstraint)
	v1.Delete("/apps/:appId/constraints/:constraintId", apps.DeleteConstraint)
	v1.Get("/apps/:appId/constraints/:constraintId/versions", apps.ConstraintVersions)
	v1.Get("/apps/:appId/constraints/:constraintId/versions/:version", apps.ConstraintVersion)
	v1.Get("/mapping", mappings.List)
	v1.Post("/mapping", mappings.Create)
	v1.Delete("/mapping", mappings.Forget)
	v1.Get("/mapping/:programId", mappings.Get)
	v1.Patch("/mapping/:programId", mappings.Update)
	v1.Delete("/mapping/:programId", mappings.Delete)
	v1.Get("/mapping/:programId/versions", mappings.Versions)
	v1.Get("/mapping/:programId/rules", mappings.Rules)
	v1.Post("/mapping/:programId/rules", mappings.AddRules)
	v1.Patch("/mapping/:programId/rules", mappings.UpdateRules)
	v1.Delete("/mapping/:programId/rules", mappings.DeleteRules)
	v1.Get("/mapping/:programId/rules/:mappingId", mappings.Rule)
	v1.Patch("/mapping/:programId/rules/:mappingId", mappings.UpdateRules)
	v1.Delete("/mapping/:programId/rules/:mappingId", mappings.DeleteRules)

	v1.Post("/instructions", instructions.Create)
	v1.Get("/instructions/sheet/:sheetId", instructions.ForSheet)
	v1.Patch("/instructions/:instructionId", instructions.Update)
	v1.Delete("/instructions/:instructionId", instructions.Delete)

	v1.Get("/views", views.List)
	v1.Post("/views", views.Create)
	v1.Get("/views/:viewId", views.Get)
	v1.Patch("/views/:viewId", views.Update)
	v1.Delete("/views/:viewId", views.Delete)

	v1.Get("/guests", guests.List)
	v1.Post("/guests", guests.Create)
	v1.Get("/guests/:guestId", guests.Get)
	v1.Patch("/guests/:guestId", guests.Update)
	v1.Delete("/guests/:guestId", guests.Delete)
	v1.Get("/guests/:guestId/token", guests.Token)

	v1.Get("/secrets", secrets.List)
	v1.Post("/secrets", secrets.Upsert)
	v1.Delete("/secrets/:secretId", secrets.Delete)

	v1.Get("/events", events.List)
	v1.Post("/events", events.Create)
	v1.Get("/events/:eventId", events.Get)
	v1.Post("/events/:eventId/ack", events.Ack)

	// -- workbooks, sheets, commits (issue 3) --
	v1.Get("/workbooks", workbooks.List)
	v1.Post("/workbooks", workbooks.Create)
	v1.Get("/workbooks/:workbookId", workbooks.Get)
	v1.Patch("/workbooks/:workbookId", workbooks.Update)
	v1.Delete("/workbooks/:workbookId", workbooks.Delete)
	v1.Post("/workbooks/:workbookId/rebuild", workbooks.Rebuild)
	v1.Get("/workbooks/:workbookId/commits", workbooks.Commits)
	v1.Get("/sheets", sheets.List)
	v1.Get("/sheets/:sheetId", sheets.Get)
	v1.Patch("/sheets/:sheetId", sheets.Update)
	v1.Delete("/sheets/:sheetId", sheets.Delete)
	v1.Post("/sheets/:sheetId/lock", sheets.Lock)
	v1.Post("/sheets/:sheetId/unlock", sheets.Unlock)
	v1.Post("/sheets/:sheetId/fields", sheets.AddField)
	v1.Delete("/sheets/:sheetId/fields/:fieldKey", sheets.RemoveField)
	v1.Get("/sheets/:sheetId/commits", sheets.Commits)
	v1.Get("/commits/:commitId", commits.Get)
	v1.Post("/commits/:commitId/complete", commits.Complete)
	v1.Post("/commits/:commitId/replay", commits.Replay)

	// -- records, counts, find-replace, snapshots (issue 3) --
	recs, snaps := api.NewRecords(d.Store), api.NewSnapshots(d.Store)
	v1.Get("/sheets/:sheetId/records", recs.Get)
	v1.Post("/sheets/:sheetId/records", recs.Insert)
	v1.Put("/sheets/:sheetId/records", recs.Update)
	v1.Delete("/sheets/:sheetId/records", recs.Delete)
	v1.Patch("/sheets/:sheetId/records/bulk-update", recs.BulkUpdate)
	v1.Get("/sheets/:sheetId/counts", recs.Counts)
	v1.Put("/sheets/:sheetId/find-replace", recs.FindReplace)
	v1.Post("/sheets/:sheetId/fields/:fieldKey/clear", recs.ClearColumn)
	v1.Post("/snapshots", snaps.Create)
	v1.Get("/snapshots", snaps.List)
	v1.Get("/snapshots/:snapshotId", snaps.Get)
	v1.Delete("/snapshots/:snapshotId", snaps.Delete)
	v1.Post("/snapshots/:snapshotId/restore", snaps.Restore)
	v1.Get("/snapshots/:snapshotId/records", snaps.Records)

	v1.Use(func(c *fiber.Ctx) error { return fiber.ErrNotFound })

	uiRoutes(app, d, files, ingestSvc, jobSvc)
}

func health(d Deps) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if err := d.Store.Ping(c.Context()); err != nil {
			return c.Status(fiber.StatusServiceUnavailable).JSON(fiber.Map{"status": "unavailable"})
		}
		return c.JSON(fiber.Map{"status": "ok"})
	}
}
