//! Plans, the features they unlock, their monthly allowances, and the UTC
//! calendar month the allowances are counted in.

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Datelike as _, TimeZone as _, Utc};
use kernel::Timestamp;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Plan {
    Sandbox,
    Build,
    Scale,
    Partner,
}

/// What a plan may unlock beyond the features every plan has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feature {
    Generation,
    Themes,
    Translations,
    CertificateTemplates,
    ScormApi,
}

/// Days between a failed charge and the suspension of the workspace.
pub const GRACE_PERIOD_DAYS: i64 = 14;

impl Plan {
    pub const ALL: [Self; 4] = [Self::Sandbox, Self::Build, Self::Scale, Self::Partner];

    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Sandbox => "sandbox",
            Self::Build => "build",
            Self::Scale => "scale",
            Self::Partner => "partner",
        }
    }

    pub const fn display_name(self) -> &'static str {
        match self {
            Self::Sandbox => "Sandbox",
            Self::Build => "Build",
            Self::Scale => "Scale",
            Self::Partner => "Partner",
        }
    }

    /// Course views included per UTC calendar month.
    pub const fn course_views(self) -> u64 {
        match self {
            Self::Sandbox => 500,
            Self::Build => 25_000,
            Self::Scale => 150_000,
            Self::Partner => 1_000_000,
        }
    }

    /// AI generations per UTC calendar month; `None` is unlimited.
    pub const fn generations(self) -> Option<u64> {
        match self {
            Self::Sandbox => Some(5),
            Self::Build => Some(100),
            Self::Scale => Some(500),
            Self::Partner => None,
        }
    }

    /// Only Sandbox stops at its allowance; paid plans are metered.
    pub const fn hard_capped(self) -> bool {
        matches!(self, Self::Sandbox)
    }

    pub fn allows(self, feature: Feature) -> bool {
        self >= feature.minimum_plan()
    }
}

impl Feature {
    pub const fn minimum_plan(self) -> Plan {
        match self {
            Self::Generation => Plan::Build,
            Self::Themes | Self::Translations | Self::CertificateTemplates | Self::ScormApi => Plan::Scale,
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Generation => "AI generation",
            Self::Themes => "themes",
            Self::Translations => "translations",
            Self::CertificateTemplates => "certificate templates",
            Self::ScormApi => "SCORM import and export over the API",
        }
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.display_name())
    }
}

impl FromStr for Plan {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|p| p.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| format!("unknown plan {s:?}; expected sandbox, build, scale or partner"))
    }
}

/// The UTC calendar month containing `at`, as `YYYY-MM`.
pub fn month_of(at: Timestamp) -> String {
    let at = DateTime::<Utc>::from_timestamp_millis(at.as_millis()).unwrap_or_default();
    format!("{:04}-{:02}", at.year(), at.month())
}

/// The first instant of the UTC month after the one containing `at`.
pub fn next_month_start(at: Timestamp) -> Timestamp {
    let at = DateTime::<Utc>::from_timestamp_millis(at.as_millis()).unwrap_or_default();
    let (year, month) = if at.month() == 12 { (at.year() + 1, 1) } else { (at.year(), at.month() + 1) };
    let start = Utc.with_ymd_and_hms(year, month, 1, 0, 0, 0).single();
    Timestamp::from_millis(start.map_or(at.timestamp_millis(), |d| d.timestamp_millis()))
}

/// Whole seconds from `now` until `then`, at least 1.
pub fn seconds_until(now: Timestamp, then: Timestamp) -> u64 {
    let millis = then.as_millis().saturating_sub(now.as_millis()).max(1);
    u64::try_from(millis.saturating_add(999) / 1000).unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_order_and_unlock_features() {
        assert!(!Plan::Sandbox.allows(Feature::Generation));
        assert!(Plan::Build.allows(Feature::Generation));
        assert!(!Plan::Build.allows(Feature::Themes));
        assert!(Plan::Scale.allows(Feature::ScormApi));
        assert!(Plan::Partner.allows(Feature::CertificateTemplates));
        assert_eq!(Plan::Partner.generations(), None);
        assert!(Plan::Sandbox.hard_capped() && !Plan::Build.hard_capped());
        assert_eq!("Scale".parse::<Plan>(), Ok(Plan::Scale));
        assert!("gold".parse::<Plan>().is_err());
    }

    #[test]
    fn months_are_utc_calendar_months() {
        // 2026-11-22T00:00:00Z
        let t = Timestamp::from_millis(1_795_305_600_000);
        assert_eq!(month_of(t), "2026-11");
        assert_eq!(next_month_start(t).to_rfc3339(), "2026-12-01T00:00:00.000Z");
        let december = Timestamp::from_millis(1_797_000_000_000);
        assert_eq!(month_of(december), "2026-12");
        assert_eq!(next_month_start(december).to_rfc3339(), "2027-01-01T00:00:00.000Z");
        assert_eq!(seconds_until(t, t.plus_millis(1_001)), 2);
        assert_eq!(seconds_until(t, t), 1);
    }
}
