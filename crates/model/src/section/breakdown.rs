//! Labels of the parts of a breakdown table (`breakdown:` metrics of a section body): the
//! section's template filled in from each part's metric name.

/// The label of breakdown part `metric` from `template` (see `breakdown_entries`).
pub fn breakdown_label(template: &str, metric: &str) -> String {
    let (unit, counter) = metric.split_once("__").unwrap_or(("", metric));
    let counter = counter.split('.').next().unwrap_or(counter);
    let unit_name = match unit {
        "l1tex" => "L1".to_owned(),
        "lts" => "L2".to_owned(),
        "ltc" => "L2 Compression".to_owned(),
        // Nsight Compute 2024.1 labels the frame buffer's DRAM counters `DRAM`
        // (`fbpa__dram_sectors` → "DRAM: Dram Sectors", every corpus details-all.csv).
        "fbpa" => "DRAM".to_owned(),
        other => other.to_uppercase(),
    };
    let compound: Vec<String> = counter
        .split('_')
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut chars = w.chars();
            chars.next().map_or_else(String::new, |c| {
                c.to_uppercase().chain(chars).collect::<String>()
            })
        })
        .collect();
    template
        .replace("{UNIT}", &unit_name)
        .replace("{COMPOUND_NAME}", &compound.join(" "))
        .replace("{NAME}", metric)
}
