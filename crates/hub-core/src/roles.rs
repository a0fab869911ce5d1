//! The one role gate: every action on a project is decided here.
//!
//! Access is resolved from three facts: whether the caller owns the project,
//! the collaborator's account-wide default role (layer 1) and a per-project
//! override (layer 2). Role layers are a Business feature: on Free and Pro
//! every collaborator acts as editor, while stored roles survive a downgrade
//! and apply again after an upgrade because they are never deleted.

use std::fmt;
use std::str::FromStr;

use crate::plans::{Feature, Plan};

/// A stored collaborator role. The owner has no role row.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    Editor,
    Viewer,
    None,
}

impl Role {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Editor => "editor",
            Self::Viewer => "viewer",
            Self::None => "none",
        }
    }
}

impl fmt::Display for Role {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Role {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "editor" => Ok(Self::Editor),
            "viewer" => Ok(Self::Viewer),
            "none" => Ok(Self::None),
            other => Err(format!("unknown role {other:?}")),
        }
    }
}

/// What a caller effectively is for one project.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Owner,
    Editor,
    Viewer,
    /// Not a member, or hidden by a `none` override: indistinguishable from a
    /// project that does not exist.
    None,
}

impl Access {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Owner => "owner",
            Self::Editor => "editor",
            Self::Viewer => "viewer",
            Self::None => "none",
        }
    }

    /// Whether this access may perform `action` (the gate's verdict, for
    /// pages that hide controls the caller cannot use).
    pub fn may(self, action: Action) -> bool {
        authorize(self, action).is_ok()
    }

    /// Resolves the caller's access from the facts the store returns.
    pub fn resolve(is_owner: bool, owner_plan: Plan, default_role: Option<Role>, project_role: Option<Role>) -> Self {
        if is_owner {
            return Self::Owner;
        }
        let Some(default_role) = default_role else { return Self::None };
        if !owner_plan.allows(Feature::RoleLayers) {
            return Self::Editor;
        }
        match project_role.unwrap_or(default_role) {
            Role::Editor => Self::Editor,
            Role::Viewer => Self::Viewer,
            Role::None => Self::None,
        }
    }
}

/// Everything a caller can try to do to a project.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    ViewProject,
    UpdateProject,
    DeleteProject,
    ManageBilling,
    /// Inviting, removing and setting roles of collaborators.
    ManageCollaborators,
    PushVersion,
    UpdateVersion,
    DeleteVersion,
    RotateUploadToken,
    /// Turning monitors on and off, their probe values and credentials.
    ManageMonitors,
}

impl Action {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::ViewProject => "view_project",
            Self::UpdateProject => "update_project",
            Self::DeleteProject => "delete_project",
            Self::ManageBilling => "manage_billing",
            Self::ManageCollaborators => "manage_collaborators",
            Self::PushVersion => "push_version",
            Self::UpdateVersion => "update_version",
            Self::DeleteVersion => "delete_version",
            Self::RotateUploadToken => "rotate_upload_token",
            Self::ManageMonitors => "manage_monitors",
        }
    }

    const fn is_owner_only(self) -> bool {
        matches!(self, Self::DeleteProject | Self::ManageBilling | Self::ManageCollaborators)
    }

    const fn is_read(self) -> bool {
        matches!(self, Self::ViewProject)
    }
}

/// The gate's verdict when it refuses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Denial {
    /// Answered exactly like a missing resource.
    Hidden,
    /// The caller sees the project but their role does not allow the action.
    Forbidden { access: Access, action: Action },
}

/// Decides whether `access` may perform `action`.
pub fn authorize(access: Access, action: Action) -> Result<(), Denial> {
    match access {
        Access::None => Err(Denial::Hidden),
        Access::Owner => Ok(()),
        _ if action.is_owner_only() => Err(Denial::Forbidden { access, action }),
        Access::Editor => Ok(()),
        Access::Viewer if action.is_read() => Ok(()),
        Access::Viewer => Err(Denial::Forbidden { access, action }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL_ACTIONS: [Action; 10] = [
        Action::ViewProject,
        Action::UpdateProject,
        Action::DeleteProject,
        Action::ManageBilling,
        Action::ManageCollaborators,
        Action::PushVersion,
        Action::UpdateVersion,
        Action::DeleteVersion,
        Action::RotateUploadToken,
        Action::ManageMonitors,
    ];

    #[test]
    fn resolution_follows_plan_and_layers() {
        use Role::{Editor, None as Hidden, Viewer};
        let cases = [
            // (owner?, plan, default, override) -> access
            (true, Plan::Free, None, None, Access::Owner),
            (false, Plan::Business, None, None, Access::None),
            (false, Plan::Free, Some(Viewer), Some(Hidden), Access::Editor),
            (false, Plan::Pro, Some(Viewer), None, Access::Editor),
            (false, Plan::Business, Some(Viewer), None, Access::Viewer),
            (false, Plan::Business, Some(Viewer), Some(Editor), Access::Editor),
            (false, Plan::Business, Some(Editor), Some(Viewer), Access::Viewer),
            (false, Plan::Business, Some(Editor), Some(Hidden), Access::None),
        ];
        for (owner, plan, default, project, expected) in cases {
            assert_eq!(
                Access::resolve(owner, plan, default, project),
                expected,
                "{owner} {plan} {default:?} {project:?}"
            );
        }
    }

    #[test]
    fn gate_decides_every_action_for_every_access() {
        for action in ALL_ACTIONS {
            assert_eq!(authorize(Access::Owner, action), Ok(()));
            assert_eq!(authorize(Access::None, action), Err(Denial::Hidden));
            let editor = authorize(Access::Editor, action);
            let viewer = authorize(Access::Viewer, action);
            if matches!(action, Action::DeleteProject | Action::ManageBilling | Action::ManageCollaborators) {
                assert!(matches!(editor, Err(Denial::Forbidden { .. })), "{action:?}");
            } else {
                assert_eq!(editor, Ok(()), "{action:?}");
            }
            if action == Action::ViewProject {
                assert_eq!(viewer, Ok(()));
            } else {
                assert!(matches!(viewer, Err(Denial::Forbidden { .. })), "{action:?}");
            }
        }
    }
}
