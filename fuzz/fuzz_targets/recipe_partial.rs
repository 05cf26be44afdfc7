//! Fuzzes the decoding of recipe partials (`timeline::recipe::partial::combine`): the bytes a
//! Dask worker sends back for one file. The first byte picks the recipe; the rest is the
//! partial, given as it is (zstd frames) when the byte is even, or compressed first when it is
//! odd, so that mutations also reach the JSON and every recipe's partial type. Errors (not
//! zstd, bad JSON, another version, recipe, options or file, a bomb) are expected; panics,
//! hangs and memory past `-rss_limit_mb` are bugs.
#![no_main]

use std::path::PathBuf;

use libfuzzer_sys::fuzz_target;
use sightline_model::timeline::recipe::partial::combine;
use sightline_model::timeline::recipe::{RECIPES, RecipeOptions};

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let recipe = &RECIPES[usize::from(pick / 2) % RECIPES.len()];
    let partial = if pick % 2 == 1 {
        match zstd::encode_all(rest, 1) {
            Ok(bytes) => bytes,
            Err(_) => return,
        }
    } else {
        rest.to_vec()
    };
    let inputs = [PathBuf::from("rank0.sqlite")];
    let _ = combine(recipe, &RecipeOptions::default(), &inputs, &[partial]);
});
