//! The contract between the native launcher and `run`: lib/run/launcher-contract.json,
//! which lib/run/plan-file.cjs requires and this reads at its first use.

use std::sync::OnceLock;

/// lib/run/launcher-contract.json, as text.
const TEXT: &str = include_str!("../../../lib/run/launcher-contract.json");

/// What the native launcher and `run` agree on (the JSON file says what each field is).
#[derive(Debug)]
pub struct Contract {
    pub version: u64,
    pub plan_reads: Vec<String>,
    pub direct_may_set: Vec<String>,
    pub seen_variable: String,
    pub max_plan_bytes: u64,
    pub inspector_off: Vec<(String, Vec<String>)>,
}

/// The contract (read once).
pub fn contract() -> &'static Contract {
    static CONTRACT: OnceLock<Contract> = OnceLock::new();
    CONTRACT.get_or_init(|| parse(TEXT).expect("lib/run/launcher-contract.json holds every field"))
}

fn parse(text: &str) -> Option<Contract> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let names = |key: &str| -> Option<Vec<String>> {
        value
            .get(key)?
            .as_array()?
            .iter()
            .map(|v| v.as_str().map(str::to_string))
            .collect()
    };
    Some(Contract {
        version: value.get("version")?.as_u64()?,
        plan_reads: names("planReads")?,
        direct_may_set: names("directMaySet")?,
        seen_variable: value.get("seenVariable")?.as_str()?.to_string(),
        max_plan_bytes: value.get("maxPlanBytes")?.as_u64()?,
        inspector_off: value
            .get("inspectorOff")?
            .as_object()?
            .iter()
            .map(|(flag, off)| {
                let off = off
                    .as_array()?
                    .iter()
                    .map(|v| v.as_str().map(str::to_string));
                Some((flag.clone(), off.collect::<Option<Vec<_>>>()?))
            })
            .collect::<Option<Vec<_>>>()?,
    })
}

/// The flags that keep a Node of ours from opening the inspector that
/// `node_options` (the user's NODE_OPTIONS) opens: none where it opens none.
pub fn inspector_off(node_options: &str) -> Vec<String> {
    let mut off: Vec<String> = Vec::new();
    for token in node_options.split_whitespace() {
        let flag = token.split('=').next().unwrap_or(token);
        let Some((_, flags)) = contract()
            .inspector_off
            .iter()
            .find(|(name, _)| name == flag)
        else {
            continue;
        };
        for f in flags {
            if !off.contains(f) {
                off.push(f.clone());
            }
        }
    }
    off
}
