package ui

import (
	"context"
	"regexp"

	"github.com/sluice/sluice/model"
	"github.com/sluice/sluice/views"
)

// builtinJobs names the jobs Sluice itself runs in the page's language; others keep their
// type:operation name (an action's job shows its label where the action is known).
var builtinJobs = map[string]string{
	"file:extract": "jobname.extract", "workbook:map": "jobname.import", "workbook:transform": "jobname.import",
	"sheet:export": "jobname.export", "workbook:export": "jobname.export", "space:export": "jobname.export",
	"sheet:delete-records": "jobname.delete", "workbook:delete-records": "jobname.delete",
	"workbook:sluice-submit": "jobname.submit", "space:configure": "jobname.configure",
}

// jobName is a job's name as a page shows it.
func jobName(ctx context.Context, j *model.Job) string {
	if id, ok := builtinJobs[j.Name()]; ok {
		return views.T(ctx, id)
	}
	return j.Name()
}

// sdkTexts are the texts Flatfile's SDKs write as i18n keys for Flatfile's own interface to
// translate (@flatfile/react's default Submit action, the job info its listener acks with).
var sdkTexts = map[string]string{
	"jobs.submit.button.defaultLabel": "sdk.submit",
	"jobs.messages.startingJob":       "sdk.starting_job",
}

// sdkText says an SDK's i18n key in the page's language; other text stays as written.
func sdkText(ctx context.Context, s string) string {
	if id, ok := sdkTexts[s]; ok {
		return views.T(ctx, id)
	}
	return s
}

// builtinOutcomes are the outcome messages of Sluice's own jobs (English in the API), said in
// the page's language.
var builtinOutcomes = []struct {
	re *regexp.Regexp
	id string
}{
	{regexp.MustCompile(`^Submitted (\d+) records to (.+)$`), "outcome.submitted_to"},
	{regexp.MustCompile(`^Submitted (\d+) records$`), "outcome.submitted"},
	{regexp.MustCompile(`^Mapped (\d+) records into (.+)$`), "outcome.mapped"},
	{regexp.MustCompile(`^Exported (\d+) records to (.+)$`), "outcome.exported"},
}

// jobMessage says a built-in job's outcome in the page's language; others stay as written.
func jobMessage(ctx context.Context, msg string) string {
	for _, o := range builtinOutcomes {
		if m := o.re.FindStringSubmatch(msg); m != nil {
			data := map[string]any{"Count": m[1]}
			if len(m) > 2 {
				data["Name"] = m[2]
			}
			return views.Tf(ctx, o.id, data)
		}
	}
	return sdkText(ctx, msg)
}
