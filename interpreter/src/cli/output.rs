//! Files knn writes (`batch -o`, `import -o`, `verify --results`, `verify --instances -o`):
//! written whole or not at all, never over one of the command's own inputs, `-` for standard
//! output.
//!
//! A file is written to a temporary file in its own directory and renamed into place once it is
//! complete, so an interrupted run (SIGINT, a full disk, an error) leaves the old file, or none,
//! never a truncated one; the rename is atomic on one file system, which the same directory
//! guarantees.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Where a command's output goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Stdout,
    File(PathBuf),
}

impl Target {
    /// `-` is standard output; anything else a file.
    pub fn of(path: &Path) -> Target {
        if path.as_os_str() == "-" { Target::Stdout } else { Target::File(path.to_path_buf()) }
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
    target: &Target,
    force: bool,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), String> {
    match target {
        Target::File(path) => write_file(path, force, write),
        Target::Stdout => {
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
