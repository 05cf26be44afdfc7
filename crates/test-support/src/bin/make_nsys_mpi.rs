//! Writes the exports of a 4-rank MPI run (`sightline_test_support::nsys_mpi`) into a folder:
//! `mpi_run.0.sqlite` … `mpi_run.3.sqlite`, with known messages, collectives and stragglers.
//!
//! ```sh
//! cargo run -p sightline-test-support --bin make_nsys_mpi -- /tmp/mpi_run
//! ```

use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(dir) = std::env::args().nth(1).map(std::path::PathBuf::from) else {
        eprintln!("usage: make_nsys_mpi OUT_FOLDER");
        return ExitCode::FAILURE;
    };
    let made = std::fs::create_dir_all(&dir)
        .map_err(|e| e.to_string())
        .and_then(|()| {
            sightline_test_support::nsys_mpi::write_mpi_run(&dir).map_err(|e| e.to_string())
        });
    match made {
        Ok(paths) => {
            for p in paths {
                println!("{}", p.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{}: {e}", dir.display());
            ExitCode::FAILURE
        }
    }
}
