//! `svc sdk SPEC --language typescript|python [-o FILE]`: generate a client
//! SDK locally, the same bytes the hub's `/sdk` route serves.

use crate::cli::{SdkArgs, SdkLanguage};
use crate::diff_cmd::parse_file;
use crate::output::Output;
use crate::push::Failure;

pub fn run(args: SdkArgs, out: &Output) -> anyhow::Result<()> {
    let spec = parse_file(&args.spec_file)?;
    let language = match args.language {
        SdkLanguage::Typescript => sdkgen::Language::TypeScript,
        SdkLanguage::Python => sdkgen::Language::Python,
    };
    let source = sdkgen::generate(&spec, language).map_err(|e| Failure::User(e.to_string()))?;
    match &args.output {
        Some(path) => {
            std::fs::write(path, &source)
                .map_err(|e| Failure::User(format!("cannot write {}: {e}", path.display())))?;
            out.emit(
                &format!("wrote {} ({} bytes)", path.display(), source.len()),
                &serde_json::json!({ "file": path.display().to_string(), "bytes": source.len(), "language": language.as_str() }),
            );
        }
        None => out.write_with(|w| w.write_all(source.as_bytes())),
    }
    Ok(())
}
