//! Files knn writes (`batch -o`, `import -o`, `verify --results`, `verify --instances -o`):
//! written whole or not at all, never over one of the command's own inputs, `-` for standard
//! output.
//!
//! A file is written to a temporary file in its own directory and renamed into place once it is
//! complete, so an interrupted run (SIGINT, a full disk, an error) leaves the old file, or none,
//! never a truncated one; the rename is atomic on one file system, which the same directory
//! guarantees. A temporary file in progress is registered, so that an interruption (SIGINT,
//! SIGTERM, SIGHUP: [`remove_on_interrupt`]) removes it before knn exits.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The temporary files being written, removed if knn is interrupted.
static IN_PROGRESS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// Installs the handler of SIGINT, SIGTERM and SIGHUP: the temporary files in progress are
/// removed and knn exits with 130 (128 + SIGINT), as an interrupted command does.
pub fn remove_on_interrupt() {
    // Without a handler (a signal thread that cannot start) the default action stays: knn
    // stops at once and may leave a temporary file, never a truncated output.
    let _ = ctrlc::set_handler(|| {
        remove_temporaries(|_| true);
        std::process::exit(knn::Exit::Interrupted.code().into());
    });
}

/// Removes the temporary files in progress that `which` selects (the handler: all of them).
fn remove_temporaries(which: impl Fn(&Path) -> bool) {
    let Ok(mut paths) = IN_PROGRESS.lock() else { return };
    paths.retain(|path| {
        if which(path) {
            let _ = std::fs::remove_file(path);
            return false;
        }
        true
    });
}

/// A temporary file registered while it exists.
struct Registered(PathBuf);

impl Registered {
    fn new(path: &Path) -> Registered {
        if let Ok(mut paths) = IN_PROGRESS.lock() {
            paths.push(path.to_path_buf());
        }
        Registered(path.to_path_buf())
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Ok(mut paths) = IN_PROGRESS.lock() {
            paths.retain(|p| p != &self.0);
        }
    }
}

/// Where a command's output goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sink {
    Stdout,
    File(PathBuf),
}

impl Sink {
    /// `-` is standard output; anything else a file.
    pub fn of(path: &Path) -> Sink {
        if path.as_os_str() == "-" { Sink::Stdout } else { Sink::File(path.to_path_buf()) }
    }
}

/// Refuses an output file that exists (unless `force`) or that is one of `inputs`: the same path
/// once symbolic links and `..` are resolved, or the same file under another name (a hard link:
/// the same device and inode).
pub fn check_output(out: &Path, force: bool, inputs: &[&Path]) -> Result<(), String> {
    for input in inputs {
        if same_file(out, input) {
            return Err(format!(
                "{} is also an input of this command ({}); write the output to another file",
                out.display(),
                input.display()
            ));
        }
    }
    if !force && std::fs::symlink_metadata(out).is_ok() {
        return Err(format!("{} exists; pass --force to overwrite it", out.display()));
    }
    Ok(())
}

/// Whether two paths name the same existing file.
pub fn same_file(a: &Path, b: &Path) -> bool {
    if let (Ok(x), Ok(y)) = (a.canonicalize(), b.canonicalize())
        && x == y
    {
        return true;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
            return x.dev() == y.dev() && x.ino() == y.ino();
        }
    }
    false
}

/// Writes a file atomically: `write` fills a temporary file next to `path`, which is then renamed
/// to `path`. Without `force`, a file that appeared at `path` meanwhile is kept (and the write
/// fails). On any error the temporary file is removed and `path` is untouched.
pub fn write_file(
    path: &Path,
    force: bool,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), String> {
    let fail = |e: &dyn std::fmt::Display| format!("cannot write {}: {e}", path.display());
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".knn-tmp");
    // A new file gets the permissions any created file gets (0666 less the umask), not the
    // owner-only ones of a temporary file.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    let temporary = builder.tempfile_in(dir).map_err(|e| fail(&e))?;
    let _registered = Registered::new(temporary.path());
    let mut writer = BufWriter::new(temporary);
    write(&mut writer).and_then(|()| writer.flush()).map_err(|e| fail(&e))?;
    let temporary = writer.into_inner().map_err(|e| fail(e.error()))?;
    temporary.as_file().sync_all().map_err(|e| fail(&e))?;
    if force {
        temporary.persist(path).map_err(|e| fail(&e.error))?;
    } else {
        temporary.persist_noclobber(path).map_err(|e| fail(&e.error))?;
    }
    Ok(())
}

/// Writes to standard output or to a file (atomically, as [`write_file`]).
pub fn write_target(
    target: &Sink,
    force: bool,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), String> {
    match target {
        Sink::File(path) => write_file(path, force, write),
        Sink::Stdout => {
            let stdout = std::io::stdout();
            let mut lock = BufWriter::new(stdout.lock());
            match write(&mut lock).and_then(|()| lock.flush()) {
                // A reader that stopped early (`| head`) is not an error (docs/cli.md).
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                other => other.map_err(|e| format!("cannot write to standard output: {e}")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        std::fs::write(&path, "old").unwrap();
        let error = write_file(&path, true, |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("disk full"))
        })
        .unwrap_err();
        assert!(error.contains("disk full"), "{error}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "the temporary file is removed");
        write_file(&path, true, |w| w.write_all(b"new")).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let kept = write_file(&path, false, |w| w.write_all(b"newer")).unwrap_err();
        assert!(kept.contains("cannot write"), "{kept}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
    }

    #[test]
    fn an_interruption_removes_the_temporary_file_in_progress() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.npy");
        std::fs::write(&path, "old").unwrap();
        let mut during = Vec::new();
        let _ = write_file(&path, true, |w| {
            w.write_all(b"half")?;
            during = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
            // What the signal handler does before it exits (here for this test's directory
            // only: other tests write files at the same time).
            remove_temporaries(|p| p.starts_with(dir.path()));
            Ok(())
        });
        assert_eq!(during.len(), 2, "the output and its temporary file: {during:?}");
        let after: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(after, vec![std::ffi::OsString::from("out.npy")], "only the output is left");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old", "and it is the old one");
        assert!(!IN_PROGRESS.lock().unwrap().iter().any(|p| p.starts_with(dir.path())));
    }

    #[test]
    fn an_output_that_is_an_input_under_another_name_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("x.npy");
        std::fs::write(&input, "data").unwrap();
        let dotted = dir.path().join(".").join("x.npy");
        assert!(check_output(&dotted, true, &[&input]).unwrap_err().contains("also an input"));
        let linked = dir.path().join("link.npy");
        std::fs::hard_link(&input, &linked).unwrap();
        assert!(check_output(&linked, true, &[&input]).unwrap_err().contains("also an input"));
        let other = dir.path().join("y.npy");
        assert_eq!(check_output(&other, false, &[&input]), Ok(()));
        assert!(check_output(&input, false, &[]).unwrap_err().contains("--force"));
    }
}
