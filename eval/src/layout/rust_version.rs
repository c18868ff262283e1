//! The declared `rust-version` against the locked dependencies.
//!
//! A `rust-version` is a promise: this toolchain builds the crate with the lock file we ship.
//! Cargo does not check the promise against the dependencies' own declarations when it
//! resolves, so it can silently become false when a dependency raises its minimum; this check
//! reads every locked package's declared `rust_version` from `cargo metadata` and compares.
//! (What our own code needs is checked by clippy's `incompatible_msrv` lint, which reads the
//! same field.)

use super::{cargo_metadata, LayoutError};
use std::fmt;
use std::path::Path;

/// A Rust version as `rust-version` writes it (`1.88`, `1.88.0`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct RustVersion(pub u64, pub u64, pub u64);

impl RustVersion {
    /// Parses `1.88` or `1.88.0`; `None` when it is not a version.
    pub fn parse(text: &str) -> Option<Self> {
        let mut parts = text.trim().split('.').map(|p| p.parse::<u64>().ok());
        let major = parts.next()??;
        let minor = parts.next().unwrap_or(Some(0))?;
        let patch = parts.next().unwrap_or(Some(0))?;
        parts.next().is_none().then_some(Self(major, minor, patch))
    }
}

impl fmt::Display for RustVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.0, self.1)?;
        if self.2 != 0 {
            write!(f, ".{}", self.2)?;
        }
        Ok(())
    }
}

/// One package and the `rust-version` it declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declared {
    /// `name version`.
    pub package: String,
    /// Its declared minimum.
    pub rust_version: RustVersion,
    /// Whether it is one of the workspace's own crates.
    pub member: bool,
}

/// What the lock file and the workspace declare.
#[derive(Debug, Clone)]
pub struct Report {
    /// Every package that declares a `rust-version`.
    pub packages: Vec<Declared>,
}

impl Report {
    /// Reads the locked packages of the workspace at `root` (all features, so optional
    /// dependencies count too).
    pub fn read(root: &Path) -> Result<Self, LayoutError> {
        let meta = cargo_metadata(root, &["--all-features", "--locked"])?;
        let members: Vec<&str> = meta["workspace_members"]
            .as_array()
            .ok_or_else(|| LayoutError::Metadata("no workspace_members".into()))?
            .iter()
            .filter_map(|m| m.as_str())
            .collect();
        let packages = meta["packages"]
            .as_array()
            .ok_or_else(|| LayoutError::Metadata("no packages".into()))?;
        let mut declared = Vec::new();
        for p in packages {
            let Some(rv) = p["rust_version"].as_str() else {
                continue;
            };
            let package = format!("{} {}", p["name"].as_str().unwrap_or("?"), p["version"]);
            let rust_version = RustVersion::parse(rv).ok_or_else(|| {
                LayoutError::Metadata(format!("{package}: rust_version `{rv}` is not a version"))
            })?;
            let member = p["id"].as_str().is_some_and(|id| members.contains(&id));
            declared.push(Declared {
                package: package.replace('"', ""),
                rust_version,
                member,
            });
        }
        Ok(Self { packages: declared })
    }

    /// The highest `rust-version` a locked dependency (not a workspace member) declares.
    pub fn highest_dependency(&self) -> Option<&Declared> {
        self.packages
            .iter()
            .filter(|p| !p.member)
            .max_by_key(|p| p.rust_version)
    }

    /// Every (member, dependency) where the member promises an older toolchain than the
    /// dependency needs. Empty when the promise holds.
    pub fn violations(&self) -> Vec<(&Declared, &Declared)> {
        let Some(highest) = self.highest_dependency() else {
            return Vec::new();
        };
        self.packages
            .iter()
            .filter(|m| m.member && m.rust_version < highest.rust_version)
            .map(|m| (m, highest))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared(package: &str, v: &str, member: bool) -> Declared {
        Declared {
            package: package.into(),
            rust_version: RustVersion::parse(v).unwrap(),
            member,
        }
    }

    #[test]
    fn parses_and_orders_versions() {
        assert_eq!(RustVersion::parse("1.88"), Some(RustVersion(1, 88, 0)));
        assert_eq!(RustVersion::parse("1.88.1"), Some(RustVersion(1, 88, 1)));
        assert_eq!(RustVersion::parse("1.x"), None);
        assert_eq!(RustVersion::parse("1.2.3.4"), None);
        assert!(RustVersion::parse("1.85").unwrap() < RustVersion::parse("1.88").unwrap());
        assert!(RustVersion::parse("1.100").unwrap() > RustVersion::parse("1.99.9").unwrap());
        assert_eq!(RustVersion(1, 88, 0).to_string(), "1.88");
    }

    #[test]
    fn a_member_below_a_dependency_is_a_violation() {
        let report = Report {
            packages: vec![
                declared("ours 0.1.0", "1.85", true),
                declared("dep 1.0.0", "1.88", false),
                declared("older 2.0.0", "1.70", false),
            ],
        };
        let v = report.violations();
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].0.package, "ours 0.1.0");
        assert_eq!(v[0].1.package, "dep 1.0.0");

        let report = Report {
            packages: vec![
                declared("ours 0.1.0", "1.88", true),
                declared("dep 1.0.0", "1.88", false),
            ],
        };
        assert!(report.violations().is_empty());
    }
}
