//! `nsys recipe diff`: the difference of two output folders of the same statistical recipe
//! (`DIR1 - DIR2`), table by table (`all_stats`, `rank_stats`), as NVIDIA's diff writes it.
//!
//! What was learnt from NVIDIA's outputs (Nsight Systems 2023.4):
//! - each folder's `.nsys-analysis` file names the recipe; both must name the same one, among
//!   [`COMPATIBLE`] (`--print-compat-recipes`); the tables are read from the Parquet files;
//! - rows are DIR1's, in its order, matched to DIR2's by the index (`Name`, `Text`...) and, in
//!   `rank_stats`, by rank: the n-th file name of DIR1 (in sorted order) is the n-th of DIR2
//!   (both must hold as many), the output keeping DIR1's `File`, as its first column. Rows of
//!   DIR2 alone are left out; a row of DIR1 alone gets missing values, and a column with a
//!   missing value is a float column. A key found twice in a file (the corpus has such rows)
//!   matches in order, its k-th row the other's k-th: NVIDIA's diff does so when both tables
//!   have the same index (a folder with itself) and stops with pandas' "cannot handle a
//!   non-unique multi-index" otherwise;
//! - only the number columns are subtracted (`Min File`, `Max File` are dropped); the index
//!   stays the index;
//! - `--tolerance N`: values whose magnitude is below N become 0; a float column whose every
//!   value became 0 is then an integer column;
//! - `--drop`: rows whose values are all 0 are dropped (after `--tolerance`); when none is
//!   left, the text columns are of Arrow's null type, as pyarrow stores empty object columns;
//! - `--csv`: the tables also as CSV.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::nsys_analysis::read_recipe_name;
use super::pandas_read::{self, PandasFrame, ReadError};
use super::table::{Cells, PandasIndex, Table, TableColumn};

/// The recipes whose outputs diff compares (`nsys recipe diff --print-compat-recipes`).
pub const COMPATIBLE: [&str; 10] = [
    "cuda_api_sum",
    "cuda_gpu_kern_sum",
    "cuda_gpu_mem_size_sum",
    "cuda_gpu_mem_time_sum",
    "mpi_sum",
    "nccl_gpu_proj_sum",
    "nccl_sum",
    "nvtx_gpu_proj_sum",
    "nvtx_sum",
    "osrt_sum",
];

/// The tables compared, by file stem, in the order written.
pub const TABLES: [&str; 2] = ["all_stats", "rank_stats"];

/// diff's options.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DiffOptions {
    /// `--tolerance N`: values whose magnitude is below N become 0.
    pub tolerance: Option<i64>,
    /// `--drop`: rows whose values are all 0 are left out.
    pub drop: bool,
    /// `--csv`: the tables also as CSV.
    pub csv: bool,
}

/// Why two folders could not be compared.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    /// A folder could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// A folder given is not one.
    #[error("{}: no such folder", path.display())]
    NoFolder {
        /// The path.
        path: PathBuf,
    },
    /// A folder holds no `.nsys-analysis` file.
    #[error("{}: no .nsys-analysis file: not the output folder of a recipe", dir.display())]
    NoAnalysis {
        /// The folder.
        dir: PathBuf,
    },
    /// A `.nsys-analysis` file names no recipe.
    #[error("{}: not JSON with a \"RecipeName\" string", path.display())]
    NoRecipeName {
        /// The file.
        path: PathBuf,
    },
    /// The folders are outputs of different recipes.
    #[error(
        "the two folders must be outputs of the same recipe: {} is {first}'s, {} is {second}'s",
        dirs[0].display(), dirs[1].display()
    )]
    NotSameRecipe {
        /// The folders.
        dirs: [PathBuf; 2],
        /// The recipe of the first.
        first: String,
        /// The recipe of the second.
        second: String,
    },
    /// The recipe has no statistics to compare.
    #[error("{}: recipe {recipe} cannot be diffed; diff compares the outputs of {}", dir.display(), COMPATIBLE.join(", "))]
    Incompatible {
        /// The folder.
        dir: PathBuf,
        /// Its recipe.
        recipe: String,
    },
    /// A table is missing.
    #[error("{}: missing (the recipe's output folder lacks this table)", path.display())]
    MissingTable {
        /// The file expected.
        path: PathBuf,
    },
    /// A table could not be read.
    #[error(transparent)]
    Read(#[from] ReadError),
    /// A table has no index column, or lacks a column of the other.
    #[error("{}: no column {column:?}", path.display())]
    MissingColumn {
        /// The table.
        path: PathBuf,
        /// The column.
        column: String,
    },
    /// The `rank_stats` tables hold different numbers of files.
    #[error(
        "the tables to compare must hold the same number of ranks: {} has {first}, {} has {second}",
        paths[0].display(), paths[1].display()
    )]
    Ranks {
        /// The tables.
        paths: [PathBuf; 2],
        /// The first's number of files.
        first: usize,
        /// The second's.
        second: usize,
    },
}

/// What diff computed.
#[derive(Debug, Clone)]
pub struct DiffOutput {
    /// The recipe whose outputs were compared.
    pub recipe: String,
    /// The tables ([`TABLES`] order).
    pub tables: Vec<Table>,
}

/// The recipe that made output folder `dir` (its `.nsys-analysis` file's `RecipeName`).
pub fn recipe_of(dir: &Path) -> Result<String, DiffError> {
    let io = |source| DiffError::Io {
        path: dir.to_path_buf(),
        source,
    };
    if !dir.is_dir() {
        return Err(DiffError::NoFolder {
            path: dir.to_path_buf(),
        });
    }
    match read_recipe_name(dir).map_err(io)? {
        None => Err(DiffError::NoAnalysis {
            dir: dir.to_path_buf(),
        }),
        Some((path, None)) => Err(DiffError::NoRecipeName { path }),
        Some((_, Some(name))) => Ok(name),
    }
}

/// Compares the outputs in `dirs` (`dirs[0] - dirs[1]`).
pub fn diff(dirs: [&Path; 2], options: &DiffOptions) -> Result<DiffOutput, DiffError> {
    let first = recipe_of(dirs[0])?;
    let second = recipe_of(dirs[1])?;
    if first != second {
        return Err(DiffError::NotSameRecipe {
            dirs: dirs.map(Path::to_path_buf),
            first,
            second,
        });
    }
    if !COMPATIBLE.contains(&first.as_str()) {
        return Err(DiffError::Incompatible {
            dir: dirs[0].to_path_buf(),
            recipe: first,
        });
    }
    let mut tables = Vec::new();
    for stem in TABLES {
        let paths = dirs.map(|d| d.join(format!("{stem}.parquet")));
        if let Some(path) = paths.iter().find(|p| !p.is_file()) {
            return Err(DiffError::MissingTable { path: path.clone() });
        }
        let frames = [pandas_read::read(&paths[0])?, pandas_read::read(&paths[1])?];
        let mut table = diff_frames(stem, &frames, &paths)?;
        if let Some(tolerance) = options.tolerance {
            apply_tolerance(&mut table, tolerance);
        }
        if options.drop {
            drop_zero_rows(&mut table);
        }
        table.csv = options.csv;
        tables.push(table);
    }
    Ok(DiffOutput {
        recipe: first,
        tables,
    })
}

/// How the rows of the first frame match the second's: the key column's name, the rows' match
/// in the second (`None`: none), and the first's `File` column when it has one.
struct Matching<'a> {
    key: &'a TableColumn,
    file: Option<&'a TableColumn>,
    matched: Vec<Option<usize>>,
}

/// Matches the first frame's rows to the second's by key and rank.
fn matching<'a>(
    frames: &'a [PandasFrame; 2],
    paths: &[PathBuf; 2],
) -> Result<Matching<'a>, DiffError> {
    let missing = |i: usize, column: &str| DiffError::MissingColumn {
        path: paths[i].clone(),
        column: column.to_owned(),
    };
    let key_name = frames[0]
        .index
        .first()
        .ok_or_else(|| missing(0, "(the index)"))?;
    let keys = [0, 1].map(|i| frames[i].column(key_name));
    let (Some(key_a), Some(key_b)) = (keys[0], keys[1]) else {
        return Err(missing(usize::from(keys[0].is_some()), key_name));
    };
    let file_a = frames[0].column("File");
    let file_b = match file_a {
        Some(_) => Some(frames[1].column("File").ok_or_else(|| missing(1, "File"))?),
        None => None,
    };
    let ranks_a = ranks(file_a, frames[0].rows());
    let ranks_b = ranks(file_b, frames[1].rows());
    if ranks_a.1 != ranks_b.1 {
        return Err(DiffError::Ranks {
            paths: paths.clone(),
            first: ranks_a.1,
            second: ranks_b.1,
        });
    }
    // A key found twice in a file: its k-th row matches the other's k-th.
    let mut in_b: HashMap<(usize, String), Vec<usize>> = HashMap::new();
    for (j, &rank) in ranks_b.0.iter().enumerate() {
        in_b.entry((rank, key_b.cells.text(j))).or_default().push(j);
    }
    let mut seen: HashMap<(usize, String), usize> = HashMap::new();
    let matched = (0..frames[0].rows())
        .map(|i| {
            let key = (ranks_a.0[i], key_a.cells.text(i));
            let k = seen.entry(key.clone()).or_default();
            *k += 1;
            in_b.get(&key)?.get(*k - 1).copied()
        })
        .collect();
    Ok(Matching {
        key: key_a,
        file: file_a,
        matched,
    })
}

/// Each row's rank (its file's place among the sorted file names) and the number of files; all
/// rows rank 0 of one file without a `File` column.
fn ranks(file: Option<&TableColumn>, rows: usize) -> (Vec<usize>, usize) {
    let Some(file) = file else {
        return (vec![0; rows], 1);
    };
    let names: Vec<String> = (0..rows).map(|i| file.cells.text(i)).collect();
    let mut sorted = names.clone();
    sorted.sort();
    sorted.dedup();
    let rank = names
        .iter()
        .map(|n| sorted.binary_search(n).unwrap_or_default())
        .collect();
    (rank, sorted.len())
}

/// The difference table of `frames` (`frames[0] - frames[1]`), before tolerance and drop.
fn diff_frames(
    stem: &'static str,
    frames: &[PandasFrame; 2],
    paths: &[PathBuf; 2],
) -> Result<Table, DiffError> {
    let m = matching(frames, paths)?;
    let mut columns = vec![m.key.clone()];
    columns.extend(m.file.cloned());
    for a in &frames[0].columns {
        if matches!(a.cells, Cells::Text(_) | Cells::Null(_)) || a.name == m.key.name {
            continue;
        }
        let b = frames[1]
            .column(&a.name)
            .ok_or_else(|| DiffError::MissingColumn {
                path: paths[1].clone(),
                column: a.name.clone(),
            })?;
        columns.push(TableColumn {
            name: a.name.clone(),
            cells: subtract(&a.cells, &b.cells, &m.matched),
        });
    }
    Ok(Table {
        stem,
        columns,
        index: PandasIndex::Key,
        csv: false,
    })
}

/// `a - b` row by row, row i of `a` against row `matched[i]` of `b`: integers when both are and
/// every row matched, else floats (missing where a value or the row is).
fn subtract(a: &Cells, b: &Cells, matched: &[Option<usize>]) -> Cells {
    if let (Cells::Int(x), Cells::Int(y)) = (a, b)
        && matched.iter().all(Option::is_some)
    {
        return Cells::Int(
            x.iter()
                .zip(matched)
                .map(|(v, j)| Some(v.as_ref()?.wrapping_sub(y.get((*j)?).copied()??)))
                .collect(),
        );
    }
    let float = |c: &Cells, i: usize| -> Option<f64> {
        match c {
            Cells::Int(v) => v.get(i).copied().flatten().map(|x| x as f64),
            Cells::Float(v) => v.get(i).copied().flatten(),
            _ => None,
        }
    };
    Cells::Float(
        matched
            .iter()
            .enumerate()
            .map(|(i, j)| Some(float(a, i)? - float(b, (*j)?)?))
            .collect(),
    )
}

/// The number columns of a diff table (all but the key and `File`).
fn values(table: &mut Table) -> impl Iterator<Item = &mut TableColumn> {
    table
        .columns
        .iter_mut()
        .filter(|c| matches!(c.cells, Cells::Int(_) | Cells::Float(_)))
}

/// Values whose magnitude is below `tolerance` become 0; a float column of only such values
/// becomes an integer column.
fn apply_tolerance(table: &mut Table, tolerance: i64) {
    for column in values(table) {
        match &mut column.cells {
            Cells::Int(v) => v
                .iter_mut()
                .flatten()
                .filter(|x| x.unsigned_abs() < tolerance.max(0).unsigned_abs())
                .for_each(|x| *x = 0),
            Cells::Float(v) => {
                let small = |x: &Option<f64>| x.is_some_and(|x| x.abs() < tolerance as f64);
                if !v.is_empty() && v.iter().all(small) {
                    let n = v.len();
                    column.cells = Cells::Int(vec![Some(0); n]);
                } else {
                    v.iter_mut()
                        .filter(|x| small(x))
                        .for_each(|x| *x = Some(0.0));
                }
            }
            _ => {}
        }
    }
}

/// Leaves out the rows whose values are all 0.
fn drop_zero_rows(table: &mut Table) {
    let zero = |c: &Cells, i: usize| match c {
        Cells::Int(v) => v[i] == Some(0),
        Cells::Float(v) => v[i] == Some(0.0),
        _ => true,
    };
    let keep: Vec<usize> = (0..table.rows())
        .filter(|&i| !table.columns.iter().all(|c| zero(&c.cells, i)))
        .collect();
    for column in &mut table.columns {
        column.cells = match column.cells {
            // pyarrow stores an object column without values as of the null type.
            Cells::Text(_) if keep.is_empty() => Cells::Null(0),
            _ => select(&column.cells, &keep),
        };
    }
}

/// The rows `keep` of `cells`.
fn select(cells: &Cells, keep: &[usize]) -> Cells {
    fn pick<T: Clone>(v: &[T], keep: &[usize]) -> Vec<T> {
        keep.iter().map(|&i| v[i].clone()).collect()
    }
    match cells {
        Cells::Int(v) => Cells::Int(pick(v, keep)),
        Cells::Float(v) => Cells::Float(pick(v, keep)),
        Cells::Text(v) => Cells::Text(pick(v, keep)),
        Cells::Null(_) => Cells::Null(keep.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(columns: Vec<TableColumn>) -> Table {
        Table {
            stem: "all_stats",
            columns,
            index: PandasIndex::Key,
            csv: false,
        }
    }

    #[test]
    fn tolerance_zeroes_small_values_and_drop_leaves_zero_rows_out() {
        let mut t = table(vec![
            TableColumn::texts("Name", ["a", "b", "c"].map(String::from)),
            TableColumn::ints("Num", [-3, 5, 0]),
            TableColumn {
                name: "Avg".into(),
                cells: Cells::Float(vec![Some(0.5), Some(-1.5), Some(2.0)]),
            },
            TableColumn {
                name: "Q1".into(),
                cells: Cells::Float(vec![Some(0.5), Some(9.0), None]),
            },
        ]);
        apply_tolerance(&mut t, 3);
        assert_eq!(
            t.columns[1].cells,
            Cells::Int(vec![Some(-3), Some(5), Some(0)])
        );
        assert_eq!(t.columns[2].cells, Cells::Int(vec![Some(0); 3]));
        assert_eq!(
            t.columns[3].cells,
            Cells::Float(vec![Some(0.0), Some(9.0), None])
        );
        drop_zero_rows(&mut t);
        assert_eq!(t.rows(), 3, "the missing value is not 0");
        t.columns.pop();
        drop_zero_rows(&mut t);
        assert_eq!(
            t.columns[0].cells,
            Cells::Text(vec![Some("a".into()), Some("b".into())])
        );
    }

    #[test]
    fn an_unmatched_row_makes_the_column_floats() {
        let a = Cells::Int(vec![Some(5), Some(7)]);
        let b = Cells::Int(vec![Some(2)]);
        assert_eq!(
            subtract(&a, &b, &[Some(0), Some(0)]),
            Cells::Int(vec![Some(3), Some(5)])
        );
        assert_eq!(
            subtract(&a, &b, &[Some(0), None]),
            Cells::Float(vec![Some(3.0), None])
        );
    }
}
