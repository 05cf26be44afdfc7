//! Sightline's bundled rules on the fixtures, run from memory by the embedded engine (deployment
//! disabled), give exactly what CPython computes running the same files on NVIDIA's reader
//! (`fixtures/golden/rules/`, written by `fixtures/verify.sh`).

use std::path::Path;
use std::process::Command;

use serde_json::Value;

/// The document without empty `errors` lists (CPython's peer leaves them out).
fn normalized(mut doc: Value) -> Value {
    if let Some(kernels) = doc.get_mut("kernels").and_then(Value::as_array_mut) {
        for kernel in kernels {
            if let Some(object) = kernel.as_object_mut()
                && object
                    .get("errors")
                    .and_then(Value::as_array)
                    .is_some_and(Vec::is_empty)
            {
                object.remove("errors");
            }
        }
    }
    doc
}

#[test]
fn bundled_rules_match_cpython_on_every_fixture() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let golden = root.join("fixtures/golden/rules");
    let mut checked = 0;
    for entry in std::fs::read_dir(&golden).expect("fixtures/golden/rules") {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let Some(fixture) = name.strip_suffix(".json") else {
            continue;
        };
        let out = Command::new(env!("CARGO_BIN_EXE_sightline"))
            .args([
                "rules",
                &root.join("fixtures").join(fixture).display().to_string(),
                "--json",
            ])
            .env("SIGHTLINE_DISABLE_DEPLOYMENT", "1")
            .output()
            .expect("run sightline");
        assert!(
            out.status.success(),
            "{fixture}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let ours: Value = serde_json::from_slice(&out.stdout).expect("JSON");
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).expect("golden JSON");
        assert_eq!(
            normalized(ours),
            normalized(expected),
            "{fixture}: the engine differs from CPython (after changing a rule, run fixtures/verify.sh)"
        );
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} golden file(s)");
}
