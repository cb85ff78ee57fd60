//! The OpenMP settings libtorch must start with. libgomp (torch's OpenMP)
//! reads `OMP_WAIT_POLICY` and `GOMP_SPINCOUNT` once, when it is loaded, so
//! they must be in the environment before `sumito-torch` starts: `sumito`
//! puts them there when it hands a command over, and `sumito-torch` started
//! by hand without them starts itself again once.

use std::ffi::OsStr;

/// Spins of an idle libgomp thread before it sleeps (about 20 µs here).
const OPENMP_SPIN_COUNT: &str = "2000";

/// The OpenMP variables a process started with `policy` and `spin_count`
/// (the values of `OMP_WAIT_POLICY` and `GOMP_SPINCOUNT`) must add.
///
/// Unset, libgomp's idle threads spin for about 3 ms, and on a busy small
/// machine spinning threads starve the ones doing the work (several times
/// slower inference measured here). Pure `PASSIVE` puts them to sleep at
/// once, which costs a wake-up on every operation. A short spin is the best
/// of both: `sumito bench` on the 2-core machine, against `PASSIVE` alone,
/// one run each: self-play 1,344 against 738 positions/s, bf16 forward at
/// batch 64 4,132 against 2,720 evals/s, training 701 against 475 samples/s,
/// and the inference service with 128 callers still at 0.94 of a raw
/// forward pass. Values the user set are kept (`ACTIVE` gets no spin count).
pub fn variables_to_add(
    policy: Option<&OsStr>,
    spin_count: Option<&OsStr>,
) -> Vec<(&'static str, &'static str)> {
    let mut add = Vec::new();
    if policy.is_none() {
        add.push(("OMP_WAIT_POLICY", "PASSIVE"));
    }
    let passive = policy.is_none_or(|policy| policy.eq_ignore_ascii_case("passive"));
    if passive && spin_count.is_none() {
        add.push(("GOMP_SPINCOUNT", OPENMP_SPIN_COUNT));
    }
    add
}

/// [`variables_to_add`] for this process's environment.
pub fn missing_variables() -> Vec<(&'static str, &'static str)> {
    variables_to_add(
        std::env::var_os("OMP_WAIT_POLICY").as_deref(),
        std::env::var_os("GOMP_SPINCOUNT").as_deref(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn openmp_gets_passive_waiting_with_a_short_spin_unless_the_user_chose() {
        let os = |value: &'static str| Some(OsStr::new(value));
        assert_eq!(
            variables_to_add(None, None),
            [("OMP_WAIT_POLICY", "PASSIVE"), ("GOMP_SPINCOUNT", "2000")]
        );
        // The scripts export PASSIVE: the spin is still added.
        assert_eq!(
            variables_to_add(os("passive"), None),
            [("GOMP_SPINCOUNT", "2000")]
        );
        assert_eq!(
            variables_to_add(None, os("0")),
            [("OMP_WAIT_POLICY", "PASSIVE")]
        );
        assert!(variables_to_add(os("PASSIVE"), os("0")).is_empty());
        assert!(variables_to_add(os("ACTIVE"), None).is_empty());
    }
}
