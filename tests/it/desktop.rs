//! Desktop integration (`sightline::desktop`): installing into a temporary data directory,
//! reinstalling, uninstalling, and, when shared-mime-info and xdg-utils are on the machine,
//! that the installed MIME package makes `xdg-mime` recognise a report.
//!
//! The environment of the test process is never changed: `XDG_DATA_HOME` / `XDG_CONFIG_HOME`
//! are set only for the child processes (through `InstallOptions` and `Command::env`).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use sightline::desktop::{
    ATP_MIME_TYPE, COMPRESSED_REPORT_MIME_TYPE, DESKTOP_ENTRY_PATH, INSTALLED_FILES,
    InstallOptions, MIME_PACKAGE_PATH, NSYS_REPORT_MIME_TYPE, NVTXT_MIME_TYPE, OCCUPANCY_MIME_TYPE,
    PNG_ICON, PNG_ICON_PATH, REPORT_MIME_TYPE, SQLITE_MIME_TYPE, SVG_ICON_PATH, ToolOutcome,
    install_desktop, uninstall_desktop,
};

fn options(data: &Path) -> InstallOptions {
    InstallOptions {
        data_dir: Some(data.to_path_buf()),
        exec: None,
        run_tools: false,
        config_dir: Some(data.join("config")),
    }
}

/// The value of `key` in the desktop entry at `path`.
fn entry_value(path: &Path, key: &str) -> String {
    let text = fs::read_to_string(path).unwrap();
    let values: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix(key)?.strip_prefix('='))
        .collect();
    assert_eq!(values.len(), 1, "{key}= lines in {text}");
    values[0].to_owned()
}

fn on_path(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn install_writes_every_file_with_its_contents() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("share");
    let report = install_desktop(&options(&data)).unwrap();

    assert_eq!(report.data_dir, data);
    let expected: Vec<PathBuf> = INSTALLED_FILES.iter().map(|f| data.join(f)).collect();
    assert_eq!(report.written, expected);
    assert!(report.unchanged.is_empty() && report.removed.is_empty());
    assert!(report.tools.is_empty(), "run_tools: false runs nothing");

    let entry = data.join(DESKTOP_ENTRY_PATH);
    assert_eq!(entry, data.join("applications/sightline.desktop"));
    assert_eq!(entry_value(&entry, "Exec"), "sightline %F");
    assert_eq!(
        entry_value(&entry, "MimeType"),
        format!(
            "{REPORT_MIME_TYPE};{COMPRESSED_REPORT_MIME_TYPE};{NSYS_REPORT_MIME_TYPE};\
             {NVTXT_MIME_TYPE};{ATP_MIME_TYPE};{OCCUPANCY_MIME_TYPE};{SQLITE_MIME_TYPE};"
        )
    );
    assert_eq!(entry_value(&entry, "Type"), "Application");
    assert_eq!(entry_value(&entry, "Icon"), "sightline");
    assert_eq!(entry_value(&entry, "StartupWMClass"), "sightline");

    let mime = fs::read_to_string(data.join(MIME_PACKAGE_PATH)).unwrap();
    assert!(mime.contains(r#"<mime-type type="application/x-nvidia-ncu-report">"#));
    assert!(mime.contains(r#"<mime-type type="application/x-nvidia-ncu-report-zstd">"#));
    assert!(mime.contains(r#"<match type="string" value="NVR\0" offset="0"/>"#));
    assert!(mime.contains(r#"<glob pattern="*.ncu-rep"/>"#));
    assert!(mime.contains(r#"<glob pattern="*.ncu-repz"/>"#));
    assert!(mime.contains(r#"<mime-type type="application/x-nvidia-nsys-report">"#));
    assert!(mime.contains(r#"<glob pattern="*.nsys-rep"/>"#));
    assert!(mime.contains(r#"<glob pattern="*.qdrep"/>"#));
    for glob in ["*.nvtxt", "*.atp", "*.occupancy"] {
        assert!(
            mime.contains(&format!(r#"<glob pattern="{glob}"/>"#)),
            "{glob}"
        );
    }

    let svg = fs::read_to_string(data.join(SVG_ICON_PATH)).unwrap();
    assert!(svg.contains("<svg") && svg.contains("viewBox=\"0 0 256 256\""));
    let png = fs::read(data.join(PNG_ICON_PATH)).unwrap();
    assert_eq!(png, PNG_ICON);
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
    // IHDR: width and height, big-endian, at bytes 16..24.
    assert_eq!(&png[16..24], &[0, 0, 1, 0, 0, 0, 1, 0]);
}

#[test]
fn exec_points_to_the_given_program() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("share");
    let opts = InstallOptions {
        exec: Some(PathBuf::from("/opt/sightline/bin/sightline")),
        ..options(&data)
    };
    install_desktop(&opts).unwrap();
    let entry = data.join(DESKTOP_ENTRY_PATH);
    assert_eq!(
        entry_value(&entry, "Exec"),
        "/opt/sightline/bin/sightline %F"
    );

    // A path with a space is quoted; the rest of the entry is unchanged.
    let spaced = InstallOptions {
        exec: Some(PathBuf::from("/home/a user/bin/sightline")),
        ..options(&data)
    };
    let report = install_desktop(&spaced).unwrap();
    assert_eq!(report.written, vec![entry.clone()]);
    assert_eq!(
        entry_value(&entry, "Exec"),
        "\"/home/a user/bin/sightline\" %F"
    );
    assert_eq!(entry_value(&entry, "Name"), "Sightline");
    assert_eq!(
        fs::read_to_string(&entry).unwrap().lines().count(),
        sightline::desktop::DESKTOP_ENTRY.lines().count()
    );

    // A relative path is made absolute.
    let relative = InstallOptions {
        exec: Some(PathBuf::from("target/sightline")),
        ..options(&data)
    };
    install_desktop(&relative).unwrap();
    let exec = entry_value(&entry, "Exec");
    assert!(
        exec.starts_with('/') && exec.ends_with("target/sightline %F"),
        "{exec}"
    );
}

#[test]
fn reinstall_is_idempotent_and_uninstall_removes_everything() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("share");
    let opts = options(&data);
    install_desktop(&opts).unwrap();
    let before: Vec<Vec<u8>> = INSTALLED_FILES
        .iter()
        .map(|f| fs::read(data.join(f)).unwrap())
        .collect();

    let again = install_desktop(&opts).unwrap();
    assert!(again.written.is_empty(), "{again}");
    assert_eq!(again.unchanged.len(), INSTALLED_FILES.len());
    let after: Vec<Vec<u8>> = INSTALLED_FILES
        .iter()
        .map(|f| fs::read(data.join(f)).unwrap())
        .collect();
    assert_eq!(before, after);

    // A damaged file is repaired by the next install.
    fs::write(data.join(MIME_PACKAGE_PATH), "garbage").unwrap();
    let repaired = install_desktop(&opts).unwrap();
    assert_eq!(repaired.written, vec![data.join(MIME_PACKAGE_PATH)]);
    assert_eq!(fs::read(data.join(MIME_PACKAGE_PATH)).unwrap(), before[1]);

    let removed = uninstall_desktop(&opts).unwrap();
    assert_eq!(removed.removed.len(), INSTALLED_FILES.len());
    for file in INSTALLED_FILES {
        assert!(!data.join(file).exists(), "{file} left behind");
    }
    // No temporary files are left either.
    for sub in ["applications", "mime/packages"] {
        let left: Vec<_> = fs::read_dir(data.join(sub)).unwrap().collect();
        assert!(left.is_empty(), "{sub}: {left:?}");
    }

    // Uninstalling twice is not an error.
    let twice = uninstall_desktop(&opts).unwrap();
    assert!(twice.removed.is_empty());
}

#[test]
fn tools_are_reported_not_fatal() {
    // Whichever tools this machine has, the install succeeds: every tool is reported as ran,
    // skipped (not on PATH) or failed, and the files are written either way.
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("share");
    let opts = InstallOptions {
        run_tools: true,
        ..options(&data)
    };
    let report = install_desktop(&opts).unwrap();
    assert_eq!(report.written.len(), INSTALLED_FILES.len());
    let commands: Vec<&str> = report
        .tools
        .iter()
        .map(|t| t.command.split(' ').next().unwrap())
        .collect();
    assert_eq!(
        commands,
        [
            "update-mime-database",
            "update-desktop-database",
            "gtk-update-icon-cache",
            "xdg-mime"
        ]
    );
    // No icon cache existed in the fresh data directory, so none is created.
    assert!(matches!(report.tools[2].outcome, ToolOutcome::Skipped(_)));
    assert!(!data.join("icons/hicolor/icon-theme.cache").exists());
    let text = report.to_string();
    assert!(text.contains("skipped gtk-update-icon-cache"), "{text}");
    let un = uninstall_desktop(&opts).unwrap();
    assert_eq!(un.removed.len(), INSTALLED_FILES.len());
}

#[test]
fn xdg_mime_recognises_installed_types() {
    let needed = ["update-mime-database", "xdg-mime"];
    if let Some(missing) = needed.iter().find(|p| !on_path(p)) {
        eprintln!("skipped: {missing} is not on PATH");
        return;
    }
    // xdg-mime reads the shared-mime-info database through `gio`, `mimetype` or the like; its
    // last resort, `file`, ignores the database.
    if !on_path("mimetype") && !on_path("gio") {
        eprintln!("skipped: xdg-mime has neither mimetype nor gio to consult the MIME database");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("share");
    let config = dir.path().join("config");
    let opts = InstallOptions {
        data_dir: Some(data.clone()),
        exec: None,
        run_tools: true,
        config_dir: Some(config.clone()),
    };
    let report = install_desktop(&opts).unwrap();
    eprintln!("{report}");
    let mime_tool = &report.tools[0];
    assert_eq!(mime_tool.outcome, ToolOutcome::Ran, "{report}");
    assert!(data.join("mime/mime.cache").is_file(), "{report}");

    let query = |file: &Path| -> String {
        let out = Command::new("xdg-mime")
            .args(["query", "filetype"])
            .arg(file)
            .env("XDG_DATA_HOME", &data)
            .env("XDG_CONFIG_HOME", &config)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).trim().to_owned()
    };
    let report_file = dir.path().join("x.ncu-rep");
    fs::write(&report_file, b"NVR\0\x01\x00\x00\x00rest of a report").unwrap();
    assert_eq!(query(&report_file), REPORT_MIME_TYPE);
    // By content alone: the magic.
    let unnamed = dir.path().join("report.bin");
    fs::write(&unnamed, b"NVR\0\x01\x00\x00\x00rest of a report").unwrap();
    assert_eq!(query(&unnamed), REPORT_MIME_TYPE);
    let compressed = dir.path().join("y.ncu-repz");
    fs::write(&compressed, b"\x28\xb5\x2f\xfd\x00\x00rest").unwrap();
    assert_eq!(query(&compressed), COMPRESSED_REPORT_MIME_TYPE);
    let nsys = dir.path().join("z.nsys-rep");
    fs::write(&nsys, b"an Nsight Systems report").unwrap();
    assert_eq!(query(&nsys), NSYS_REPORT_MIME_TYPE);
    for (name, mime) in [
        ("a.nvtxt", NVTXT_MIME_TYPE),
        ("s.atp", ATP_MIME_TYPE),
        ("s.occupancy", OCCUPANCY_MIME_TYPE),
    ] {
        let file = dir.path().join(name);
        fs::write(&file, b"TimeBase = Relative\n").unwrap();
        assert_eq!(query(&file), mime, "{name}");
    }

    // `xdg-mime default` wrote the associations into the temporary config only.
    if report.tools[3].outcome == ToolOutcome::Ran {
        let list = fs::read_to_string(config.join("mimeapps.list")).unwrap();
        assert!(
            list.contains(&format!("{REPORT_MIME_TYPE}=sightline.desktop")),
            "{list}"
        );
        assert!(
            list.contains(&format!("{NSYS_REPORT_MIME_TYPE}=sightline.desktop")),
            "{list}"
        );
        // SQLite databases are offered in "Open With", never claimed as default.
        assert!(!list.contains(SQLITE_MIME_TYPE), "{list}");
        let un = uninstall_desktop(&opts).unwrap();
        assert_eq!(un.edited, vec![config.join("mimeapps.list")], "{un}");
        let list = fs::read_to_string(config.join("mimeapps.list")).unwrap();
        assert!(!list.contains("sightline.desktop"), "{list}");
    } else {
        uninstall_desktop(&opts).unwrap();
    }
    // After uninstalling (and rebuilding the database), the report is no longer recognised.
    assert_ne!(query(&report_file), REPORT_MIME_TYPE);
}
