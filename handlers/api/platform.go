package api

import (
	"encoding/json"
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/sluice/sluice/auth"
	"github.com/sluice/sluice/errs"
	"github.com/sluice/sluice/store"
)

// Platform serves the endpoints Flatfile's plugins and SDKs call before doing their work:
// entitlements, the event subscription and data retention policies.
type Platform struct {
	envs   EnvironmentStore
	tokens *auth.Tokens
}

// NewPlatform returns the platform handlers.
func NewPlatform(envs EnvironmentStore, tokens *auth.Tokens) *Platform {
	return &Platform{envs: envs, tokens: tokens}
}

// Entitlements handles GET /v1/entitlements?resourceId=: Sluice gates no feature behind a
// plan, so the list is empty — which is what the extractor plugins check (headerSelection,
// sourceEditor, customRecordsPageSize) before parsing a file.
func (h *Platform) Entitlements(c *fiber.Ctx) error {
	if c.Query("resourceId") == "" {
		return errs.Invalidf("resourceId", "Name the resource (a space id) with resourceId")
	}
	return c.JSON(fiber.Map{"data": []any{}})
}

// subscriptionTTL is how long a subscription token stays valid.
const subscriptionTTL = time.Hour

// Subscription handles GET /v1/subscription?scope= (events.getEventToken): where a
// self-hosted driver reads the scope's events. Flatfile answers a PubNub token; Sluice
// answers the same shape — accountId, subscribeKey ("sluice": there is no PubNub), ttl and
// token, a bearer token for the scope valid for ttl seconds — and where to read with it:
// streamUrl (Server-Sent Events, /v1/events/stream) and eventsUrl (GET /v1/events, for a
// driver that polls). scope is an environment (us_env_…) or a space (us_sp_…).
func (h *Platform) Subscription(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	scope := c.Query("scope", c.Query("spaceId"))
	q := url.Values{}
	switch {
	case scope == "":
		return errs.Invalidf("scope", "Name the environment (us_env_…) or space (us_sp_…) to subscribe to with scope")
	case strings.HasPrefix(scope, "us_env_"):
		if p.SpaceID != "" || !p.ReachesEnvironment(scope) {
			return errs.NotFoundf("scope", "Environment not found")
		}
		q.Set("environmentId", scope)
	case strings.HasPrefix(scope, "us_sp_"):
		if p.SpaceID != "" && p.SpaceID != scope {
			return errs.NotFoundf("scope", "Space not found")
		}
		q.Set("spaceId", scope)
	default:
		return errs.Invalidf("scope", "scope is an environment (us_env_…) or a space (us_sp_…), got %q", scope)
	}
	tok, _, err := h.tokens.IssueFor(p, subscriptionTTL)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"data": fiber.Map{
		"accountId": p.AccountID, "subscribeKey": "sluice", "ttl": int(subscriptionTTL.Seconds()), "token": tok,
		"streamUrl": "/v1/events/stream?" + q.Encode(), "eventsUrl": "/v1/events?" + q.Encode(),
	}})
}

// retentionPolicyJSON is Flatfile's DataRetentionPolicy.
type retentionPolicyJSON struct {
	ID            string `json:"id"`
	Type          string `json:"type"`
	Period        int    `json:"period"`
	EnvironmentID string `json:"environmentId"`
	CreatedAt     Time   `json:"createdAt"`
	UpdatedAt     Time   `json:"updatedAt"`
}

// RetentionPolicies handles GET /v1/data-retention-policies?environmentId=: Sluice's one
// policy per environment — a space's data goes after metadata.retentionDays (default 365)
// days without activity — as Flatfile's lastActivity policy. It is set by PATCHing the
// environment's metadata.retentionDays.
func (h *Platform) RetentionPolicies(c *fiber.Ctx) error {
	p := PrincipalOf(c)
	envID := c.Query("environmentId", p.EnvironmentID)
	if envID == "" {
		return errs.Invalidf("environmentId", "Name the environment with environmentId")
	}
	if !p.ReachesEnvironment(envID) {
		return errs.NotFoundf("environmentId", "Environment not found")
	}
	env, err := h.envs.GetEnvironment(ctxOf(c), p.AccountID, envID)
	if err != nil {
		return err
	}
	days := store.DefaultRetentionDays
	var meta struct {
		RetentionDays *int `json:"retentionDays"`
	}
	if json.Unmarshal(env.Metadata, &meta) == nil && meta.RetentionDays != nil && *meta.RetentionDays > 0 {
		days = *meta.RetentionDays
	}
	return c.JSON(fiber.Map{"data": []retentionPolicyJSON{{ID: "us_drp_" + strings.TrimPrefix(env.ID, "us_env_"), Type: "lastActivity",
		Period: days, EnvironmentID: env.ID, CreatedAt: Time(env.CreatedAt), UpdatedAt: Time(env.UpdatedAt)}}})
}
