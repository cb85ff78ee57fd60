//! Who holds a lease of a run, as messages name it: what a busy role or a
//! run in use reports.

/// A process holding a lease, as messages name it.
#[derive(Debug, Clone, PartialEq)]
pub struct Holder {
    pub host: String,
    pub pid: u32,
    pub command: String,
    /// The single-writer roles it holds, where known.
    pub roles: Vec<String>,
    /// For a holder on another machine, known only by its record: the
    /// seconds since it renewed its lease, and how many more until it is
    /// presumed dead.
    pub renewed: Option<(f64, f64)>,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "process {} on {}", self.pid, self.host)?;
        let mut about = Vec::new();
        if !self.command.is_empty() {
            about.push(self.command.clone());
        }
        if !self.roles.is_empty() {
            let plural = if self.roles.len() == 1 {
                "role"
            } else {
                "roles"
            };
            about.push(format!("the {} {plural}", self.roles.join(" and ")));
        }
        if !about.is_empty() {
            write!(f, " ({})", about.join(", "))?;
        }
        if let Some((age, _)) = self.renewed {
            write!(f, ", whose lease was renewed {age:.0} s ago")?;
        }
        Ok(())
    }
}
