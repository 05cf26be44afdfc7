//! `--nvtx RANGE[@DOMAIN]` of the analysis recipes: the time window of the first instance (the
//! earliest start) of the named NVTX range in each export, as the recipe takes it (learnt from
//! its outputs: the sync calls after the first of 18 instances are left out).

use rusqlite::OptionalExtension;

use crate::timeline::nsys::ExportDb;

const NVTX: &str = "NVTX_EVENTS";
/// `NvtxPushPopRange` and `NvtxStartEndRange`.
const RANGES: &str = "59, 60";
/// `NvtxDomainCreate`.
const DOMAIN_CREATE: i64 = 75;

/// The `(start, end)` of the first range named `filter`'s name (in its domain, when it names
/// one: `RANGE@DOMAIN`); `None` when the export has none.
pub(super) fn first_range(db: &ExportDb, filter: &str) -> Result<Option<(i64, i64)>, String> {
    if !db.has_table(NVTX) {
        return Ok(None);
    }
    let (name, domain) = match filter.rsplit_once('@') {
        Some((name, domain)) => (name, Some(domain)),
        None => (filter, None),
    };
    let text = if db.has_table("StringIds") && db.has_column(NVTX, "textId") {
        "COALESCE(n.text, (SELECT value FROM StringIds WHERE id = n.textId))"
    } else {
        "n.text"
    };
    // Without a domain, any; with one the export cannot name (no `domainId`), none.
    let domain_test = if domain.is_some() && db.has_column(NVTX, "domainId") {
        format!(
            "AND n.domainId IN (SELECT domainId FROM {NVTX} WHERE eventType = {DOMAIN_CREATE} \
             AND text = ?2)"
        )
    } else {
        "AND ?2 IS NULL".to_owned()
    };
    let sql = format!(
        "SELECT n.start, n.end FROM {NVTX} n WHERE n.eventType IN ({RANGES}) \
         AND n.end IS NOT NULL AND {text} = ?1 {domain_test} ORDER BY n.start LIMIT 1"
    );
    let found = db
        .conn
        .query_row(&sql, rusqlite::params![name, domain], |row| {
            Ok((row.get::<_, i64>(0)?, row.get::<_, i64>(1)?))
        })
        .optional()
        .map_err(|e| format!("{}: NVTX ranges: {e}", db.path.display()))?;
    Ok(found)
}
