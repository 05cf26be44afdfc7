//! A recipe's per-file work done elsewhere (another process, a Dask worker: the Python
//! module's `sightline.recipe`), and the combining of what it sends back.
//!
//! [`file_partial`] reduces one export to its partial result as [`super::run`] does, and
//! encodes it with what it was computed by and for: Sightline's version, the recipe, its
//! options and the file (JSON in a zstd frame: small, and readable by any later version to
//! say which version made it). [`combine`] decodes every file's partial, refuses one made by
//! another Sightline version or for another recipe, options or file, and makes the tables
//! exactly as [`super::run`] makes them from the same partials.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{
    FileOutcome, Gathered, KindFn, Recipe, RecipeError, RecipeKind, RecipeOptions, RecipeOutput,
    RunOutput, check_options, prepare,
};

/// The Sightline version writing partials: only the same version combines them.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The zstd level of partials (fast; the JSON of statistics and rows shrinks ~10×).
const LEVEL: i32 = 3;

/// A partial that cannot be made or combined.
#[derive(Debug, thiserror::Error)]
pub enum PartialError {
    /// Not a partial of any Sightline version (damaged, or something else).
    #[error("partial {index} (of {file}) is not a Sightline recipe partial: {why}")]
    Decode {
        /// Its position among the partials.
        index: usize,
        /// The input it stands for.
        file: String,
        /// Why.
        why: String,
    },
    /// Made by another Sightline version.
    #[error(
        "the partial of {file} was computed by Sightline {theirs}, but this is Sightline {ours}: \
         install the same Sightline version where the files are read (every Dask worker) and \
         where they are combined"
    )]
    Version {
        /// The input.
        file: String,
        /// The version that made it.
        theirs: String,
        /// This version.
        ours: &'static str,
    },
    /// Made for another recipe, options or file than the one it is combined for.
    #[error("the partial given for {file} was computed for {what}")]
    Mismatch {
        /// The input.
        file: String,
        /// What it was computed for instead.
        what: String,
    },
    /// Not one partial per input.
    #[error("{partials} partials for {inputs} input files")]
    Count {
        /// Partials given.
        partials: usize,
        /// Inputs given.
        inputs: usize,
    },
    /// Encoding failed.
    #[error("cannot encode the partial of {file}: {why}")]
    Encode {
        /// The input.
        file: String,
        /// Why.
        why: String,
    },
}

/// What a partial holds.
#[derive(Serialize, Deserialize)]
struct Envelope<P> {
    /// The Sightline version that made it ([`VERSION`]).
    sightline: String,
    /// The recipe.
    recipe: String,
    /// Its options.
    options: RecipeOptions,
    /// The input file, as given.
    file: String,
    /// What the file gave.
    outcome: FileOutcome<P>,
}

/// What every version's partial holds (read before the rest, which may differ).
#[derive(Deserialize)]
struct Header {
    /// See [`Envelope`].
    sightline: String,
}

/// Reads the export at `path` for `recipe` with `options` and encodes what it gives (its
/// partial, or why it gave none) for [`combine`].
pub fn file_partial(
    recipe: &'static Recipe,
    options: &RecipeOptions,
    path: &Path,
) -> Result<Vec<u8>, RecipeError> {
    check_options(recipe, options)?;
    recipe.kind.apply(Encode {
        recipe,
        options,
        path,
    })
}

/// The recipe's output from the partials of `inputs` ([`file_partial`]; `partials[i]` is that
/// of `inputs[i]`), as [`super::run`] computes it from the files.
pub fn combine(
    recipe: &'static Recipe,
    options: &RecipeOptions,
    inputs: &[PathBuf],
    partials: &[Vec<u8>],
) -> Result<RecipeOutput, RecipeError> {
    if partials.len() != inputs.len() {
        return Err(PartialError::Count {
            partials: partials.len(),
            inputs: inputs.len(),
        }
        .into());
    }
    // The inputs in the recipe's order (as `prepare` sorts them: stable, by file name), each
    // with its partial.
    let mut pairs: Vec<(&PathBuf, &[u8])> = inputs
        .iter()
        .zip(partials.iter().map(Vec::as_slice))
        .collect();
    pairs.sort_by(|a, b| a.0.file_name().cmp(&b.0.file_name()));
    let sorted: Vec<PathBuf> = pairs.iter().map(|(p, _)| (*p).clone()).collect();
    let (inputs, stems) = prepare(recipe, &sorted, options)?;
    let bytes: Vec<&[u8]> = pairs.iter().map(|(_, b)| *b).collect();
    let decode = Decode {
        recipe,
        options,
        inputs: &inputs,
        stems: &stems,
        partials: &bytes,
    };
    let output = recipe.kind.apply(decode)?;
    Ok(RecipeOutput::of(recipe, inputs, output))
}

/// [`file_partial`] for one kind.
struct Encode<'a> {
    recipe: &'static Recipe,
    options: &'a RecipeOptions,
    path: &'a Path,
}

impl KindFn for Encode<'_> {
    type Out = Result<Vec<u8>, RecipeError>;

    fn call<K: RecipeKind>(self, kind: &K) -> Self::Out {
        let file = self.path.to_string_lossy().into_owned();
        let envelope = Envelope {
            sightline: VERSION.to_owned(),
            recipe: self.recipe.name.to_owned(),
            options: self.options.clone(),
            outcome: kind.file(self.path, self.options),
            file: file.clone(),
        };
        let encode = |why: String| PartialError::Encode {
            file: file.clone(),
            why,
        };
        let json = serde_json::to_vec(&envelope).map_err(|e| encode(e.to_string()))?;
        Ok(zstd::encode_all(json.as_slice(), LEVEL).map_err(|e| encode(e.to_string()))?)
    }
}

/// [`combine`] for one kind.
struct Decode<'a> {
    recipe: &'static Recipe,
    options: &'a RecipeOptions,
    inputs: &'a [PathBuf],
    stems: &'a [String],
    partials: &'a [&'a [u8]],
}

impl KindFn for Decode<'_> {
    type Out = Result<RunOutput, RecipeError>;

    fn call<K: RecipeKind>(self, kind: &K) -> Self::Out {
        let mut gathered = Gathered::new(self.inputs.len());
        for (i, (path, bytes)) in self.inputs.iter().zip(self.partials).enumerate() {
            let envelope: Envelope<K::Partial> = self.decode(i, path, bytes)?;
            gathered.add(i, envelope.outcome);
        }
        Ok(gathered.finish(kind, self.stems, self.options))
    }
}

/// The most a partial's JSON may take once decoded: a thousand times its compressed size, at
/// least 256 MiB (partials of statistics shrink ~10×; a damaged or hostile one claiming more is
/// refused rather than exhausting memory).
fn decoded_limit(compressed: usize) -> u64 {
    u64::try_from(compressed)
        .unwrap_or(u64::MAX)
        .saturating_mul(1000)
        .max(256 << 20)
}

/// The JSON of a partial's zstd frames, within [`decoded_limit`].
fn decompress(bytes: &[u8]) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let limit = decoded_limit(bytes.len());
    let decoder = zstd::Decoder::new(bytes).map_err(|e| format!("not zstd ({e})"))?;
    let mut json = Vec::new();
    decoder
        .take(limit.saturating_add(1))
        .read_to_end(&mut json)
        .map_err(|e| format!("not zstd ({e})"))?;
    if json.len() as u64 > limit {
        return Err(format!("it decodes to more than {limit} bytes"));
    }
    Ok(json)
}

impl Decode<'_> {
    /// The partial `bytes` of input `index` (`path`), checked to be this version's, for this
    /// recipe, these options and this file.
    fn decode<P: serde::de::DeserializeOwned>(
        &self,
        index: usize,
        path: &Path,
        bytes: &[u8],
    ) -> Result<Envelope<P>, PartialError> {
        let file = path.to_string_lossy().into_owned();
        let bad = |why: String| PartialError::Decode {
            index,
            file: file.clone(),
            why,
        };
        let json = decompress(bytes).map_err(bad)?;
        let header: Header = serde_json::from_slice(&json).map_err(|e| bad(e.to_string()))?;
        if header.sightline != VERSION {
            return Err(PartialError::Version {
                file,
                theirs: header.sightline,
                ours: VERSION,
            });
        }
        let envelope: Envelope<P> =
            serde_json::from_slice(&json).map_err(|e| bad(e.to_string()))?;
        let mismatch = |what: String| PartialError::Mismatch {
            file: file.clone(),
            what,
        };
        if envelope.recipe != self.recipe.name {
            return Err(mismatch(format!("recipe {}", envelope.recipe)));
        }
        if envelope.file != file {
            return Err(mismatch(format!("file {}", envelope.file)));
        }
        if envelope.options != *self.options {
            return Err(mismatch(format!("other options ({:?})", envelope.options)));
        }
        Ok(envelope)
    }
}

/// A float field kept exactly in partials, NaN and the infinities too (JSON has no number
/// for them: they go as the text Rust prints them as).
pub(super) mod any_float {
    use serde::de::Error as _;
    use serde::{Deserialize, Deserializer, Serializer};

    /// `v` as a number, or as text when not finite.
    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        if v.is_finite() {
            s.serialize_f64(*v)
        } else {
            s.serialize_str(&v.to_string())
        }
    }

    /// A number, or the text of a non-finite one.
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        /// Either form.
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Float {
            /// Finite.
            Number(f64),
            /// `NaN`, `inf`, `-inf`.
            Text(String),
        }
        match Float::deserialize(d)? {
            Float::Number(v) => Ok(v),
            Float::Text(t) => t.parse().map_err(D::Error::custom),
        }
    }
}
