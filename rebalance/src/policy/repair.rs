//! What a policy descheduler v0.36 refuses would do once fixed: the same
//! policy with every plugin whose configuration v0.36 refuses taken out, so
//! that `kdrift rebalance plan` can show the rest of the cycle next to the
//! refusal (v0.36 itself runs no cycle at all with such a policy).
//!
//! Only a plugin's own fault can be taken out: its args failing its
//! `Validate…Args`, a near miss of a v0.36 plugin name, a plugin enabled at
//! an extension point it does not implement, or enabled without its
//! `pluginConfig`. A fault of the whole policy (the `nodeSelector`, the
//! DefaultEvictor's args) has no such fix.

use super::{config_error, extension_point_of, Policy, DEFAULT_EVICTOR, KNOWN_PLUGINS};

impl Policy {
    /// This policy with every plugin v0.36's validation refuses taken out
    /// (from `pluginConfig` and every `enabled` list), and what was taken
    /// out, each as `profile P: PLUGIN (why)`. `None` when the policy is
    /// valid, when the fault is not a plugin's (an invalid `nodeSelector` or
    /// DefaultEvictor args), or when no Deschedule or Balance plugin would
    /// be left.
    pub fn without_invalid_plugins(&self) -> Option<(Policy, Vec<String>)> {
        if self.validate().is_ok() {
            return None;
        }
        let mut fixed = self.clone();
        let mut removed = Vec::new();
        for profile in &mut fixed.profiles {
            let mut out: Vec<(String, String)> = Vec::new();
            for pc in &profile.plugin_config {
                if let Some(e) = config_error(profile, pc) {
                    if pc.name == DEFAULT_EVICTOR {
                        return None;
                    }
                    let prefix = format!("in profile {}: ", profile.name);
                    out.push((pc.name.clone(), e.strip_prefix(&prefix).unwrap_or(&e).to_string()));
                }
            }
            let sets = [
                ("deschedule", &mut profile.plugins.deschedule.enabled),
                ("balance", &mut profile.plugins.balance.enabled),
                ("filter", &mut profile.plugins.filter.enabled),
                ("preEvictionFilter", &mut profile.plugins.pre_eviction_filter.enabled),
            ];
            for (point, enabled) in sets {
                enabled.retain(|n| {
                    let known = KNOWN_PLUGINS.contains(&n.as_str());
                    let wrong = match point {
                        "deschedule" | "balance" => known && extension_point_of(n).map(|p| p.key()) != Some(point),
                        _ => known && n != DEFAULT_EVICTOR,
                    };
                    if wrong {
                        out.push((
                            n.clone(),
                            format!("enabled at the {point} extension point, which it does not implement"),
                        ));
                    }
                    !wrong
                });
            }
            let configured: Vec<String> = profile
                .plugin_config
                .iter()
                .filter(|pc| config_error(profile, pc).is_none())
                .map(|c| c.name.clone())
                .collect();
            let refused: Vec<String> = profile
                .plugin_config
                .iter()
                .filter(|pc| config_error(profile, pc).is_some())
                .map(|pc| pc.name.clone())
                .collect();
            for enabled in [&mut profile.plugins.deschedule.enabled, &mut profile.plugins.balance.enabled] {
                enabled.retain(|n| {
                    let missing = extension_point_of(n).is_some() && !configured.contains(n) && !refused.contains(n);
                    if missing {
                        out.push((n.clone(), "enabled without its pluginConfig".to_string()));
                    }
                    !missing
                });
            }
            // A refused pluginConfig goes everywhere; a plugin at the wrong
            // point or without its config only from that list.
            let names = refused;
            profile.plugin_config.retain(|c| !names.contains(&c.name));
            for enabled in [&mut profile.plugins.deschedule.enabled, &mut profile.plugins.balance.enabled] {
                enabled.retain(|n| !names.contains(n));
            }
            let mut seen: Vec<&str> = Vec::new();
            for (name, why) in &out {
                if !seen.contains(&name.as_str()) {
                    seen.push(name);
                    removed.push(format!("profile {}: {name} ({why})", profile.name));
                }
            }
        }
        let left = fixed
            .profiles
            .iter()
            .any(|p| !p.plugins.deschedule.enabled.is_empty() || !p.plugins.balance.enabled.is_empty());
        (fixed.validate().is_ok() && left && !removed.is_empty()).then_some((fixed, removed))
    }
}

#[cfg(test)]
mod tests {
    use crate::policy::plugins::test_support::one_plugin_policy;
    use crate::policy::Policy;

    const TWO: &str = "apiVersion: descheduler/v1alpha2\nkind: DeschedulerPolicy\nprofiles:\n- name: p\n  pluginConfig:\n  - name: DefaultEvictor\n  - name: RemovePodsHavingTooManyRestarts\n    args: {podRestartThreshold: 0}\n  - name: RemoveDuplicates\n  plugins:\n    deschedule:\n      enabled: [RemovePodsHavingTooManyRestarts, RemoveDuplicates]\n    balance:\n      enabled: [RemoveDuplicates, LowNodeUtilization]\n";

    #[test]
    fn the_refused_plugins_are_taken_out_and_named() {
        let (read, _) = Policy::from_yaml_unvalidated(TWO).expect("reads");
        let err = read.validate().expect_err("refused").to_string();
        assert!(err.contains("invalid PodsHavingTooManyRestarts threshold"), "{err}");
        let (fixed, removed) = read.without_invalid_plugins().expect("fixable");
        assert_eq!(
            removed,
            vec![
                "profile p: RemovePodsHavingTooManyRestarts (invalid PodsHavingTooManyRestarts threshold)",
                "profile p: RemoveDuplicates (enabled at the deschedule extension point, which it does not implement)",
                "profile p: LowNodeUtilization (enabled without its pluginConfig)",
            ]
        );
        let p = &fixed.profiles[0];
        assert!(p.plugins.deschedule.enabled.is_empty());
        assert_eq!(p.plugins.balance.enabled, vec!["RemoveDuplicates".to_string()]);
        assert_eq!(
            p.plugin_config.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
            ["DefaultEvictor", "RemoveDuplicates"]
        );
        fixed.validate().expect("valid once fixed");
    }

    #[test]
    fn no_fix_for_a_valid_policy_or_when_nothing_is_left() {
        let valid = Policy::from_yaml(&one_plugin_policy("RemoveDuplicates", "balance", "")).expect("valid");
        assert_eq!(valid.without_invalid_plugins(), None);
        let only_bad =
            one_plugin_policy("RemovePodsHavingTooManyRestarts", "deschedule", "    args: {podRestartThreshold: 0}\n");
        let (read, _) = Policy::from_yaml_unvalidated(&only_bad).expect("reads");
        assert_eq!(read.without_invalid_plugins(), None, "nothing would be left to plan");
    }
}
