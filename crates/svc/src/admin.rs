//! `svc hub ...`: administration of the hub's store, usable while the server
//! runs (SQLite in WAL mode and PostgreSQL both allow concurrent writers).

use std::io::BufRead as _;

use anyhow::Context as _;
use hub_core::Source;
use kernel::Secret;
use serde_json::json;

use crate::cli::{HubCommand, StoreArgs, TokenCommand, UserCommand};
use crate::config::open_hub;
use crate::output::Output;

pub async fn run(command: HubCommand, store: &StoreArgs, out: &Output) -> anyhow::Result<()> {
    let hub = open_hub(store).await?;
    match command {
        HubCommand::User(UserCommand::Create { email, plan, password_stdin }) => {
            let password = if password_stdin { Some(read_password()?) } else { None };
            let user = hub.create_user(&email, plan.into(), password.as_ref()).await?;
            out.emit(
                &format!("created user {} on the {} plan (id {})", user.email, user.plan, user.id),
                &json!({ "id": user.id, "email": user.email, "plan": user.plan.as_str() }),
            );
        }
        HubCommand::User(UserCommand::SetPlan { email, plan }) => {
            let user = hub.set_plan(&email, plan.into()).await?;
            out.emit(
                &format!("{} is now on the {} plan", user.email, user.plan),
                &json!({ "id": user.id, "email": user.email, "plan": user.plan.as_str() }),
            );
        }
        HubCommand::Token(TokenCommand::Create { email, name, expires_in }) => {
            let (info, token) = hub.create_token(&email, &name, expires_in, Source::System).await?;
            let expires = info.expires_at.map(|t| t.to_rfc3339());
            out.emit(
                &format!(
                    "{}\n\nThis is the only time the token is shown. Name: {}{}",
                    token.expose(),
                    info.name,
                    expires.as_ref().map(|e| format!(", expires {e}")).unwrap_or_default()
                ),
                &json!({ "token": token.expose(), "id": info.id, "name": info.name, "expires_at": expires }),
            );
        }
        HubCommand::Token(TokenCommand::List { email }) => {
            let tokens = hub.list_tokens(&email).await?;
            if out.is_json() {
                for t in tokens {
                    out.emit(
                        "",
                        &json!({
                            "id": t.id, "name": t.name, "display": t.display,
                            "created_at": t.created_at.to_rfc3339(),
                            "expires_at": t.expires_at.map(|x| x.to_rfc3339()),
                            "last_used_at": t.last_used_at.map(|x| x.to_rfc3339()),
                        }),
                    );
                }
            } else if tokens.is_empty() {
                out.line(&format!("{email} has no tokens"));
            } else {
                for t in tokens {
                    out.line(&format!(
                        "{}  {:<20} {}  last used {}",
                        t.id,
                        t.name,
                        t.display,
                        t.last_used_at.map_or_else(|| "never".to_owned(), |x| x.to_rfc3339())
                    ));
                }
            }
        }
        HubCommand::Token(TokenCommand::Revoke { email, token }) => {
            let revoked = hub.revoke_token(&email, &token, Source::System).await?;
            out.emit(
                &format!("revoked token {} ({})", revoked.name, revoked.id),
                &json!({ "revoked": revoked.id, "name": revoked.name }),
            );
        }
        HubCommand::VerifyDomain { domain } => {
            hub.verify_custom_domain(&domain).await?;
            out.emit(&format!("{domain} verified: its docs are served there"), &json!({ "verified": domain }));
        }
        HubCommand::PrunePreviews => {
            let removed = hub.prune_expired_previews().await?;
            out.emit(&format!("removed {removed} expired preview versions"), &json!({ "removed": removed }));
        }
    }
    hub.db().close().await;
    Ok(())
}

fn read_password() -> anyhow::Result<Secret<String>> {
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line).context("could not read the password from standard input")?;
    Ok(Secret::new(line.trim_end_matches(['\r', '\n']).to_owned()))
}
