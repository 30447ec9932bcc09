package webtest

import (
	"testing"
)

// JobEvents returns the events about a job, oldest first.
func (e *Env) JobEvents(t *testing.T, jobID string) []map[string]any {
	t.Helper()
	out := e.MustCall(t, "GET", "/v1/events?domain=job&pageSize=1000&includeAcknowledged=true", Secret, nil)
	var evs []map[string]any
	for _, ev := range ListOf(out) {
		m := ev.(map[string]any)
		if m["context"].(map[string]any)["jobId"] == jobID {
			evs = append(evs, m)
		}
	}
	return evs
}

func TopicsOf(evs []map[string]any) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e["topic"].(string))
	}
	return out
}

func (e *Env) MustCreateJob(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	return DataOf(e.MustCall(t, "POST", "/v1/jobs", Secret, body))
}

func ErrMsg(m map[string]any) string {
	list, _ := m["errors"].([]any)
	if len(list) == 0 {
		return ""
	}
	s, _ := list[0].(map[string]any)["message"].(string)
	return s
}
