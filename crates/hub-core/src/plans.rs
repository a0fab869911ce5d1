//! The plans and every number of the seed's Limits table, in one place.
//!
//! Every gate in the hub reads [`Plan::limits`] or [`Plan::allows`]; no other
//! module hard-codes a plan name or a quota.

use std::fmt;
use std::str::FromStr;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Plan {
    Free,
    Pro,
    Business,
}

/// A capability that some plans lack.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Feature {
    Monitoring,
    Sdks,
    Diffs,
    SavedRequests,
    Embed,
    Branding,
    PreviewPushes,
    DocsBuilder,
    RemoveWatermark,
    AuditLog,
    AuditWebhook,
    AuditCsvExport,
    RoleLayers,
    CustomDomain,
    /// MCP `call_endpoint`: live calls to the project's API.
    McpLiveCalls,
    /// The docs' chat drawer (plans with a daily chat token allowance).
    DocsChat,
}

impl Feature {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Monitoring => "monitoring",
            Self::Sdks => "sdks",
            Self::Diffs => "diffs",
            Self::SavedRequests => "saved_requests",
            Self::Embed => "embed",
            Self::Branding => "branding",
            Self::PreviewPushes => "preview_pushes",
            Self::DocsBuilder => "docs_builder",
            Self::RemoveWatermark => "remove_watermark",
            Self::AuditLog => "audit_log",
            Self::AuditWebhook => "audit_webhook",
            Self::AuditCsvExport => "audit_csv_export",
            Self::RoleLayers => "role_layers",
            Self::CustomDomain => "custom_domain",
            Self::McpLiveCalls => "mcp_live_calls",
            Self::DocsChat => "docs_chat",
        }
    }

    /// The cheapest plan that has this feature.
    pub const fn minimum_plan(self) -> Plan {
        match self {
            Self::Monitoring
            | Self::Sdks
            | Self::Diffs
            | Self::SavedRequests
            | Self::Embed
            | Self::Branding
            | Self::PreviewPushes
            | Self::DocsBuilder
            | Self::RemoveWatermark
            | Self::McpLiveCalls
            | Self::DocsChat => Plan::Pro,
            Self::AuditLog | Self::AuditWebhook | Self::AuditCsvExport | Self::RoleLayers | Self::CustomDomain => {
                Plan::Business
            }
        }
    }
}

/// Quotas of a plan. `None` means unlimited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub max_projects: Option<u32>,
    pub collaborator_seats: u32,
    pub max_inboxes: Option<u32>,
    /// Captures allowed per rolling window of `capture_window_days`.
    pub max_captures: Option<u32>,
    pub capture_window_days: u32,
    pub ai_searches_per_month: Option<u32>,
    pub chat_tokens_per_day: u32,
    pub price_per_month: u32,
}

/// Plan-independent limits of the seed.
pub mod fixed {
    /// Spec upload size: 50 MB.
    pub const MAX_SPEC_BYTES: usize = 50 * 1024 * 1024;
    /// Preview versions live 14 days after their last push.
    pub const PREVIEW_LIFETIME_DAYS: i64 = 14;
    /// Previews one project may hold at once (the seed leaves the value open).
    pub const MAX_PREVIEWS_PER_PROJECT: u32 = 20;
    /// SDK and diff routes, per project per minute.
    pub const SDK_DIFF_REQUESTS_PER_MINUTE: u32 = 60;
    pub const MAX_PROJECT_NAME_CHARS: usize = 200;
    pub const MAX_LABEL_CHARS: usize = 100;
    pub const MAX_TOKEN_NAME_CHARS: usize = 100;
    /// MCP tool calls, per project per minute (the seed leaves it open).
    pub const MCP_CALLS_PER_MINUTE: u32 = 600;
    /// MCP `call_endpoint` live calls, per project per minute.
    pub const MCP_LIVE_CALLS_PER_MINUTE: u32 = 30;
    /// Questions one visitor may ask a project's docs assistant per hour,
    /// chat and AI search together (the seed names the limit, not its
    /// value).
    pub const ASSISTANT_QUESTIONS_PER_VISITOR_HOUR: u32 = 30;
}

impl Plan {
    pub const ALL: [Self; 3] = [Self::Free, Self::Pro, Self::Business];

    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Free => "free",
            Self::Pro => "pro",
            Self::Business => "business",
        }
    }

    pub const fn limits(self) -> Limits {
        match self {
            Self::Free => Limits {
                max_projects: Some(2),
                collaborator_seats: 0,
                max_inboxes: Some(5),
                max_captures: Some(500),
                capture_window_days: 7,
                ai_searches_per_month: Some(5),
                chat_tokens_per_day: 0,
                price_per_month: 0,
            },
            // The seed leaves Pro's project cap open; 20 keeps a small team's
            // services on one plan while leaving Business a reason to exist.
            Self::Pro => Limits {
                max_projects: Some(20),
                collaborator_seats: 3,
                max_inboxes: Some(25),
                max_captures: Some(10_000),
                capture_window_days: 30,
                ai_searches_per_month: None,
                chat_tokens_per_day: 25_000,
                price_per_month: 9,
            },
            Self::Business => Limits {
                max_projects: None,
                collaborator_seats: 10,
                max_inboxes: None,
                max_captures: None,
                capture_window_days: 30,
                ai_searches_per_month: None,
                chat_tokens_per_day: 200_000,
                price_per_month: 19,
            },
        }
    }

    /// Position in the upgrade order. Written out rather than derived from
    /// the variant order, so reordering the enum can never change a gate.
    pub const fn rank(self) -> u8 {
        match self {
            Self::Free => 0,
            Self::Pro => 1,
            Self::Business => 2,
        }
    }

    pub const fn allows(self, feature: Feature) -> bool {
        self.rank() >= feature.minimum_plan().rank()
    }

    /// Business accounts write audit rows; Free and Pro write none.
    pub const fn writes_audit(self) -> bool {
        self.allows(Feature::AuditLog)
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Plan {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "free" => Ok(Self::Free),
            "pro" => Ok(Self::Pro),
            "business" => Ok(Self::Business),
            other => Err(format!("unknown plan {other:?}: expected free, pro or business")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_follow_the_seed_table() {
        let pro_and_up = [
            Feature::Monitoring,
            Feature::Sdks,
            Feature::Diffs,
            Feature::SavedRequests,
            Feature::Embed,
            Feature::Branding,
            Feature::PreviewPushes,
            Feature::DocsBuilder,
            Feature::McpLiveCalls,
            Feature::DocsChat,
        ];
        for feature in pro_and_up {
            assert!(!Plan::Free.allows(feature), "{feature:?}");
            assert!(Plan::Pro.allows(feature), "{feature:?}");
            assert!(Plan::Business.allows(feature), "{feature:?}");
        }
        let business = [
            Feature::AuditLog,
            Feature::AuditWebhook,
            Feature::AuditCsvExport,
            Feature::RoleLayers,
            Feature::CustomDomain,
        ];
        for feature in business {
            assert!(!Plan::Free.allows(feature), "{feature:?}");
            assert!(!Plan::Pro.allows(feature), "{feature:?}");
            assert!(Plan::Business.allows(feature), "{feature:?}");
        }
    }

    #[test]
    fn limits_match_the_seed() {
        let free = Plan::Free.limits();
        assert_eq!((free.max_projects, free.max_inboxes, free.max_captures), (Some(2), Some(5), Some(500)));
        assert_eq!((free.capture_window_days, free.ai_searches_per_month, free.chat_tokens_per_day), (7, Some(5), 0));
        let pro = Plan::Pro.limits();
        assert_eq!((pro.collaborator_seats, pro.max_inboxes, pro.max_captures), (3, Some(25), Some(10_000)));
        assert_eq!((pro.capture_window_days, pro.chat_tokens_per_day, pro.price_per_month), (30, 25_000, 9));
        let business = Plan::Business.limits();
        assert_eq!((business.collaborator_seats, business.max_inboxes), (10, None));
        assert_eq!((business.chat_tokens_per_day, business.price_per_month), (200_000, 19));
        assert_eq!(fixed::MAX_SPEC_BYTES, 52_428_800);
        // The chat drawer is offered exactly where the day has tokens.
        for plan in Plan::ALL {
            assert_eq!(plan.allows(Feature::DocsChat), plan.limits().chat_tokens_per_day > 0, "{plan}");
        }
    }

    #[test]
    fn parses_plan_names() {
        assert_eq!("Business".parse::<Plan>(), Ok(Plan::Business));
        assert!("gold".parse::<Plan>().is_err());
        for plan in Plan::ALL {
            assert_eq!(plan.as_str().parse::<Plan>(), Ok(plan));
        }
    }
}
