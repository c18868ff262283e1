//! Any bytes into the Flight Plan parser: it must answer Ok or a typed error, never panic, and
//! every plan it accepts must survive a YAML round trip unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use navigator_context::FlightPlan;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(plan) = FlightPlan::from_yaml(text) {
        let again = FlightPlan::from_yaml(&plan.to_yaml(&["fuzz".into()])).expect("a serialised plan parses");
        assert_eq!(again, plan);
    }
});
