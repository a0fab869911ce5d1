//! Where `svc push` finds its settings: `svc.json` or `.svcrc.json` found by
//! walking up from the working directory, then the environment, then flags,
//! each overriding the last.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The fields of `svc.json` / `.svcrc.json`.
#[derive(Debug, Default, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FileConfig {
    /// Base URL of the hub, e.g. `https://docs.example.com`.
    pub server: Option<String>,
    /// A token in the file (prefer `tokenEnv` for anything committed).
    pub token: Option<String>,
    /// The name of an environment variable holding the token.
    pub token_env: Option<String>,
    pub project: Option<String>,
    pub label: Option<String>,
}

pub const FILE_NAMES: [&str; 2] = ["svc.json", ".svcrc.json"];

/// The nearest config file from `start` upwards, if any.
pub fn discover(start: &Path) -> Option<PathBuf> {
    start.ancestors().find_map(|dir| FILE_NAMES.iter().map(|name| dir.join(name)).find(|path| path.is_file()))
}

pub fn load(path: &Path) -> Result<FileConfig, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("could not read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| {
        format!("{}:{}:{}: {e} (fields: server, token, tokenEnv, project, label)", path.display(), e.line(), e.column())
    })
}

/// The settings after layering file, environment and flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    pub server: String,
    pub token: Option<String>,
    pub project: Option<String>,
    pub label: Option<String>,
}

pub const DEFAULT_SERVER: &str = "http://127.0.0.1:8080";

/// One layer of optional settings.
#[derive(Debug, Default, Clone)]
pub struct Layer {
    pub server: Option<String>,
    pub token: Option<String>,
    pub project: Option<String>,
    pub label: Option<String>,
}

impl FileConfig {
    /// The file's values, resolving `tokenEnv` through `env`.
    pub fn layer(&self, env: &dyn Fn(&str) -> Option<String>) -> Layer {
        let token = self.token.clone().or_else(|| self.token_env.as_deref().and_then(env));
        Layer { server: self.server.clone(), token, project: self.project.clone(), label: self.label.clone() }
    }
}

/// Applies layers from lowest to highest precedence.
pub fn merge(layers: &[Layer]) -> Settings {
    let mut settings = Settings { server: DEFAULT_SERVER.to_owned(), token: None, project: None, label: None };
    for layer in layers {
        let non_empty = |v: &Option<String>| v.clone().filter(|s| !s.trim().is_empty());
        if let Some(server) = non_empty(&layer.server) {
            settings.server = server;
        }
        settings.token = non_empty(&layer.token).or(settings.token);
        settings.project = non_empty(&layer.project).or(settings.project);
        settings.label = non_empty(&layer.label).or(settings.label);
    }
    settings.server = settings.server.trim_end_matches('/').to_owned();
    settings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn discovery_walks_up_and_prefers_svc_json() {
        let root = tempfile::tempdir().unwrap();
        let nested = root.path().join("a/b/c");
        std::fs::create_dir_all(&nested).unwrap();
        assert_eq!(discover(&nested), None);
        std::fs::write(root.path().join(".svcrc.json"), "{}").unwrap();
        assert_eq!(discover(&nested), Some(root.path().join(".svcrc.json")));
        std::fs::write(root.path().join("a/svc.json"), "{}").unwrap();
        assert_eq!(discover(&nested), Some(root.path().join("a/svc.json")));
    }

    #[test]
    fn layers_override_in_order_and_token_env_resolves() {
        let file: FileConfig = serde_json::from_str(
            r#"{"server": "https://hub.example.com/", "tokenEnv": "MY_TOKEN", "project": "pets", "label": "dev"}"#,
        )
        .unwrap();
        let env = |name: &str| (name == "MY_TOKEN").then(|| "svc_from_env".to_owned());
        let from_env = Layer { token: Some("svc_pat_env".to_owned()), ..Layer::default() };
        let flags = Layer { project: Some("cats".to_owned()), label: Some(String::new()), ..Layer::default() };
        let only_file = merge(&[file.layer(&env)]);
        assert_eq!(only_file.server, "https://hub.example.com");
        assert_eq!(only_file.token.as_deref(), Some("svc_from_env"));
        let all = merge(&[file.layer(&env), from_env, flags]);
        assert_eq!(all.token.as_deref(), Some("svc_pat_env"));
        assert_eq!(all.project.as_deref(), Some("cats"));
        assert_eq!(all.label.as_deref(), Some("dev"), "an empty flag does not erase");
        assert_eq!(merge(&[]).server, DEFAULT_SERVER);
    }

    #[test]
    fn unknown_fields_are_reported_with_their_position() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("svc.json");
        std::fs::write(&path, "{\n  \"projet\": \"x\"\n}").unwrap();
        let err = load(&path).unwrap_err();
        assert!(err.contains("projet") && err.contains(":2:"), "{err}");
    }
}
