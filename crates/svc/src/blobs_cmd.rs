//! `svc admin ...`: moving blobs between stores and collecting those no
//! version refers to.

use clap::{Subcommand, ValueEnum};
use serde_json::json;

use crate::cli::StoreArgs;
use crate::output::Output;

#[derive(Subcommand, Debug)]
pub enum AdminCommand {
    /// Copy every blob of a service from one store to another, each streamed
    /// and verified by its SHA-256; run it again to resume an interrupted run.
    /// Stores: `s3://bucket/prefix`, `file:///dir` (or a path), `database`.
    MigrateBlobs {
        #[arg(long, value_enum, default_value_t = BlobService::Hub)]
        service: BlobService,
        #[arg(long)]
        from: String,
        #[arg(long)]
        to: String,
        /// Copy at most this many blobs, then stop (a run in batches).
        #[arg(long)]
        stop_after: Option<u64>,
    },
    /// Delete the hub's blobs that no version has referred to for the grace
    /// period (the hourly job does the same, once across nodes).
    GcBlobs {
        #[arg(long, default_value_t = 24)]
        grace_hours: u64,
    },
}

#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum BlobService {
    Hub,
    Courses,
}

pub async fn run(command: AdminCommand, store: &StoreArgs, out: &Output) -> anyhow::Result<()> {
    match command {
        AdminCommand::MigrateBlobs { service, from, to, stop_after } => {
            let (db, name) = match service {
                BlobService::Hub => (crate::config::open_hub(store).await?.db().clone(), "hub"),
                BlobService::Courses => (crate::courses::open_courses(store).await?.db().clone(), "courses"),
            };
            let source = platform::blobs::store_for_url(&from, name, &db)?;
            let target = platform::blobs::store_for_url(&to, name, &db)?;
            let mut last_print = std::time::Instant::now();
            let report = platform::blobs::migrate(source.as_ref(), target.as_ref(), stop_after, |report, total| {
                if last_print.elapsed().as_secs() >= 2 {
                    last_print = std::time::Instant::now();
                    eprintln!("{} of {total} blobs done", report.copied + report.present);
                }
            })
            .await?;
            let left = report.total.saturating_sub(report.copied + report.present);
            out.emit(
                &format!(
                    "copied {} blobs ({} bytes) from {} to {}, each read back and verified; {} were already there{}",
                    report.copied,
                    report.bytes,
                    source.describe(),
                    target.describe(),
                    report.present,
                    if left > 0 { format!("; {left} left: run the command again to go on") } else { String::new() },
                ),
                &json!({ "copied": report.copied, "present": report.present, "bytes": report.bytes, "left": left }),
            );
            db.close().await;
        }
        AdminCommand::GcBlobs { grace_hours } => {
            let hub = crate::config::open_hub(store).await?;
            let grace_ms = i64::try_from(grace_hours.saturating_mul(3_600_000)).unwrap_or(i64::MAX);
            let done = hub.collect_blob_garbage(grace_ms).await?;
            out.emit(
                &format!(
                    "{} blobs in {}: {} referenced by no version, {} deleted (unreferenced for over {grace_hours} h)",
                    done.stored,
                    hub.blobs().describe(),
                    done.unreferenced,
                    done.deleted
                ),
                &json!({ "stored": done.stored, "unreferenced": done.unreferenced, "deleted": done.deleted }),
            );
            hub.db().close().await;
        }
    }
    Ok(())
}
