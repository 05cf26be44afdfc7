//! Which rank a file is: from `MPI_RANKS` (globalTid → rank), else the environment the
//! launcher gave the process (`OMPI_COMM_WORLD_RANK`, `PMI_RANK`...), else an NVTX mark,
//! range or thread name reading "MPI Rank N" (as the MPI wrappers of Nsight Systems' samples
//! and pipit's traces write it).

/// Where a file's rank was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RankFrom {
    /// `MPI_RANKS`: every thread of the file with a rank has this one.
    MpiRanks,
    /// An environment variable of the target or of the launched process.
    Environment(&'static str),
    /// An NVTX mark, range or thread name "MPI Rank N".
    Nvtx,
}

impl RankFrom {
    /// How the source reads in a tooltip ("MPI_RANKS", "OMPI_COMM_WORLD_RANK", "NVTX").
    pub fn describe(self) -> &'static str {
        match self {
            RankFrom::MpiRanks => "MPI_RANKS",
            RankFrom::Environment(var) => var,
            RankFrom::Nvtx => "NVTX",
        }
    }
}

/// The environment variables that give a process its rank in `MPI_COMM_WORLD`, in the order
/// they are looked at: Open MPI, PMI (MPICH, Intel MPI), PMIx, MVAPICH2, Cray PALS, Slurm's
/// task id (one task per rank under `srun`), IBM Spectrum MPI.
pub const RANK_VARIABLES: &[&str] = &[
    "OMPI_COMM_WORLD_RANK",
    "PMI_RANK",
    "PMIX_RANK",
    "MV2_COMM_WORLD_RANK",
    "PALS_RANKID",
    "SLURM_PROCID",
    "MP_CHILD",
];

/// The rank a text such as "MPI Rank 3", "mpi rank: 3" or "Thread name: MPI Rank 3" names.
pub fn rank_in_text(text: &str) -> Option<i64> {
    let lower = text.to_ascii_lowercase();
    let at = lower.find("mpi rank")?;
    let rest = lower[at + "mpi rank".len()..].trim_start_matches([' ', ':', '=', '#']);
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    if digits.is_empty() {
        return None;
    }
    digits.parse().ok()
}

/// The file's rank from `MPI_RANKS` (one rank for all its threads), else the first of
/// [`RANK_VARIABLES`] set to a number in `variables` (name, value), else the one rank the
/// `texts` name ([`rank_in_text`]; none when they name several).
pub(crate) fn file_rank<'t>(
    thread_ranks: &[(i64, i64)],
    variables: &[(&str, &str)],
    texts: impl Iterator<Item = &'t str>,
) -> Option<(i64, RankFrom)> {
    let mut ranks: Vec<i64> = thread_ranks.iter().map(|&(_, r)| r).collect();
    ranks.sort_unstable();
    ranks.dedup();
    if let [one] = ranks[..] {
        return Some((one, RankFrom::MpiRanks));
    }
    if ranks.len() > 1 {
        // Several ranks in one file: each thread says its own.
        return None;
    }
    for &var in RANK_VARIABLES {
        let value = variables
            .iter()
            .find(|(name, _)| *name == var)
            .and_then(|(_, v)| v.trim().parse::<i64>().ok());
        if let Some(rank) = value {
            return Some((rank, RankFrom::Environment(var)));
        }
    }
    let mut named: Vec<i64> = texts.filter_map(rank_in_text).collect();
    named.sort_unstable();
    named.dedup();
    match named[..] {
        [one] => Some((one, RankFrom::Nvtx)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{RankFrom, file_rank, rank_in_text};

    #[test]
    fn ranks_from_texts() {
        assert_eq!(rank_in_text("MPI Rank 0"), Some(0));
        assert_eq!(rank_in_text("Thread name: MPI Rank 12"), Some(12));
        assert_eq!(rank_in_text("mpi rank: 3 (node 1)"), Some(3));
        assert_eq!(rank_in_text("MPI Ranks"), None);
        assert_eq!(rank_in_text("rank 3"), None);
    }

    #[test]
    fn sources_in_order() {
        let env = [("SLURM_PROCID", "5"), ("PMI_RANK", "4")];
        assert_eq!(
            file_rank(&[(1, 2), (2, 2)], &env, ["MPI Rank 9"].into_iter()),
            Some((2, RankFrom::MpiRanks))
        );
        assert_eq!(
            file_rank(&[], &env, ["MPI Rank 9"].into_iter()),
            Some((4, RankFrom::Environment("PMI_RANK")))
        );
        assert_eq!(
            file_rank(&[], &[], ["x", "MPI Rank 9", "MPI Rank 9"].into_iter()),
            Some((9, RankFrom::Nvtx))
        );
        assert_eq!(
            file_rank(&[], &[], ["MPI Rank 1", "MPI Rank 2"].into_iter()),
            None
        );
        assert_eq!(file_rank(&[(1, 0), (2, 1)], &env, [].into_iter()), None);
    }
}
