package api

import (
	"context"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/formats"
	"github.com/sluice/sluice/ingest"
	"github.com/sluice/sluice/model"
)

// Planner works out a map job's plan.
type Planner interface {
	PlanJob(ctx context.Context, j *model.Job) (*ingest.Plan, error)
}

// Plans serves GET /v1/jobs/:jobId/plan.
type Plans struct {
	jobs    *Jobs
	planner Planner
}

// NewPlans returns the plan handler.
func NewPlans(j *Jobs, p Planner) *Plans { return &Plans{jobs: j, planner: p} }

type planFieldJSON struct {
	SourceField      model.Field `json:"sourceField"`
	DestinationField model.Field `json:"destinationField"`
	Preview          []string    `json:"preview"`
	Metadata         struct {
		Certainty  string   `json:"certainty"`
		Confidence float64  `json:"confidence"`
		Source     string   `json:"source"`
		Reasons    []string `json:"reasons"`
		Apply      bool     `json:"apply"`
		// Format is how the job reads the source's text for a date or number destination;
		// Reading what the column's values say. Sluice's own additions.
		Format  string           `json:"format,omitempty"`
		Reading *formats.Reading `json:"reading,omitempty"`
	} `json:"metadata"`
}

// Get handles GET /v1/jobs/:jobId/plan: the field mapping a map job will apply, with each
// edge's certainty (absolute ≥ 0.95, strong ≥ 0.8, moderate ≥ 0.6, weak) and reasons.
func (h *Plans) Get(c *fiber.Ctx) error {
	_, j, err := h.jobs.job(c)
	if err != nil {
		return err
	}
	if j.Operation != ingest.MapOperation {
		return errs.Invalidf("jobId", "Only map jobs have a plan; this job's operation is %q", j.Operation)
	}
	p, err := h.planner.PlanJob(ctxOf(c), j)
	if err != nil {
		return err
	}
	edges := make([]planFieldJSON, 0, len(p.Edges))
	for _, e := range p.Edges {
		var pe planFieldJSON
		pe.SourceField, pe.DestinationField, pe.Preview = e.Source, e.Destination, []string{}
		pe.Metadata.Certainty, pe.Metadata.Confidence, pe.Metadata.Reasons, pe.Metadata.Apply = e.Certainty, e.Confidence, e.Reasons, e.Apply
		pe.Metadata.Format, pe.Metadata.Reading = e.Format, e.Reading
		pe.Metadata.Source = "sluice"
		if p.ProgramID != "" {
			pe.Metadata.Source = p.ProgramID
		}
		edges = append(edges, pe)
	}
	unSrc := make([]fiber.Map, 0, len(p.UnmappedSource))
	for _, f := range p.UnmappedSource {
		unSrc = append(unSrc, fiber.Map{"sourceField": f, "preview": []string{}})
	}
	unDst := make([]fiber.Map, 0, len(p.UnmappedDestination))
	for _, f := range p.UnmappedDestination {
		unDst = append(unDst, fiber.Map{"destinationField": f, "preview": []string{}})
	}
	plan := fiber.Map{"fieldMapping": edges, "unmappedSourceFields": unSrc, "unmappedDestinationFields": unDst}
	if p.ProgramID != "" {
		plan["programId"] = p.ProgramID
	}
	return data(c, fiber.Map{"job": toJobJSON(j), "plan": plan})
}
