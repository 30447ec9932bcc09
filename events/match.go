package events

import (
	"slices"
	"strings"

	"github.com/sluice/sluice/model"
)

// TopicMatches reports whether topic matches one of patterns. A pattern is a topic
// ("job:ready"), a prefix glob ("job:*" or "job:**") or "*" / "**" for every topic. No
// patterns at all also means every topic.
func TopicMatches(patterns []string, topic string) bool {
	if len(patterns) == 0 {
		return true
	}
	for _, p := range patterns {
		switch {
		case p == "*" || p == "**" || p == topic:
			return true
		case strings.HasSuffix(p, ":*") || strings.HasSuffix(p, ":**"):
			if strings.HasPrefix(topic, strings.TrimRight(p, "*")) {
				return true
			}
		}
	}
	return false
}

// AgentWants reports whether a webhook agent should receive an event: same account and
// environment, a matching topic, the agent's namespace (when it has one) among the event's,
// and an event no older than the agent.
func AgentWants(a *model.Agent, e *model.Event) bool {
	if a.AccountID != e.Context.AccountID || a.EnvironmentID != e.Context.EnvironmentID || e.CreatedAt.Before(a.CreatedAt) {
		return false
	}
	if !TopicMatches(a.Config.Topics, e.Topic) {
		return false
	}
	if ns := a.Config.Namespace; ns != "" {
		all := append(append([]string{}, e.Namespaces...), e.Context.Namespaces...)
		return slices.Contains(all, ns) || slices.Contains(all, "space:"+ns)
	}
	return true
}
