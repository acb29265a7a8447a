//! Rev-0: porting only. `when` becomes `requires`, `.` becomes `.K`, the K3 attributes go, the
//! duplicated "Linear Layer" block goes (knn lists it once anyway), and the dead `fun` rules
//! are deleted: nothing builds `fun(…)`.

use super::Patch;
use crate::rules::utility::{FUN_MERGE_2, FUN_MERGE_N, FUN_UNWRAP};

pub static PATCH: Patch = Patch {
    name: "Rev-0",
    title: "porting only: delete the dead `fun` rules",
    reason: "`fun` is only built by commented-out code, and K >= 6 rejects `[function]` on its rules",
    removes: &[&FUN_MERGE_2, &FUN_MERGE_N, &FUN_UNWRAP],
    adds: &[],
};
