//! Writing and removing [`super`]'s registry values with the Win32 registry API, under
//! `HKEY_CURRENT_USER\Software\Classes` (no administrator rights needed).

use std::path::Path;
use std::ptr;

use windows_sys::Win32::Foundation::{
    ERROR_FILE_NOT_FOUND, ERROR_MORE_DATA, ERROR_SUCCESS, WIN32_ERROR,
};
use windows_sys::Win32::System::Registry::{
    HKEY, HKEY_CURRENT_USER, KEY_READ, KEY_WRITE, REG_NONE, REG_OPTION_NON_VOLATILE, REG_SZ,
    RegCloseKey, RegCreateKeyExW, RegDeleteKeyW, RegDeleteTreeW, RegDeleteValueW, RegOpenKeyExW,
    RegQueryInfoKeyW, RegQueryValueExW, RegSetValueExW,
};
use windows_sys::Win32::UI::Shell::{SHCNE_ASSOCCHANGED, SHCNF_IDLIST, SHChangeNotify};

use super::{
    RegistryError, RegistryReport, RegistryValue, extension_defaults, own_keys, registry_writes,
};

/// Registers Sightline's file types for `exe` (see the [module documentation](super)); with
/// `notify`, tells Explorer that associations changed so that icons and "Open with" update at
/// once. Idempotent: values already holding what would be written are left alone.
pub fn install_file_types(exe: &Path, notify: bool) -> Result<RegistryReport, RegistryError> {
    let mut report = RegistryReport::default();
    for value in registry_writes(exe) {
        let key = Key::create(&value.key)?;
        if key.get(value.name.as_deref())? == Some(value.data.clone().unwrap_or_default()) {
            report.unchanged.push(value.to_string());
        } else {
            key.set(&value)?;
            report.written.push(value.to_string());
        }
    }
    for value in extension_defaults() {
        let key = Key::create(&value.key)?;
        match key.get(None)? {
            Some(current) if Some(&current) == value.data.as_ref() => {
                report.unchanged.push(value.to_string());
            }
            Some(other) if !other.is_empty() => {
                report
                    .kept
                    .push(format!("{value}: {other} (Sightline is in Open with)"));
            }
            _ => {
                key.set(&value)?;
                report.written.push(value.to_string());
            }
        }
    }
    if notify {
        notify_explorer();
    }
    Ok(report)
}

/// Removes what [`install_file_types`] wrote, whatever program path it was installed for;
/// entries already gone are not an error.
pub fn uninstall_file_types(notify: bool) -> Result<RegistryReport, RegistryError> {
    let mut report = RegistryReport::default();
    // The values under extensions' keys: the program path does not matter for their names.
    let exe = Path::new("sightline.exe");
    for value in registry_writes(exe)
        .into_iter()
        .filter(|v| v.key.starts_with('.'))
    {
        if let Some(key) = Key::open(&value.key)?
            && key.delete_value(value.name.as_deref())?
        {
            report.removed.push(value.to_string());
        }
    }
    for value in extension_defaults() {
        if let Some(key) = Key::open(&value.key)?
            && key.get(None)? == value.data
            && key.delete_value(None)?
        {
            report.removed.push(value.to_string());
        }
    }
    for value in registry_writes(exe).iter().chain(&extension_defaults()) {
        if !value.key.starts_with('.') {
            continue;
        }
        // `.ext\OpenWithProgids`, then `.ext`, each when left empty.
        let mut key = value.key.as_str();
        loop {
            if delete_if_empty(key)? {
                report
                    .removed
                    .push(format!(r"{}\{key}", super::CLASSES_ROOT));
            }
            match key.rsplit_once('\\') {
                Some((parent, _)) => key = parent,
                None => break,
            }
        }
    }
    for key in own_keys() {
        if delete_tree(key)? {
            report
                .removed
                .push(format!(r"{}\{key}", super::CLASSES_ROOT));
        }
    }
    if notify {
        notify_explorer();
    }
    Ok(report)
}

/// Tells the shell that file associations changed.
fn notify_explorer() {
    // SAFETY: SHCNE_ASSOCCHANGED takes no items: both pointers may be null.
    unsafe {
        SHChangeNotify(
            SHCNE_ASSOCCHANGED as i32,
            SHCNF_IDLIST,
            ptr::null(),
            ptr::null(),
        )
    };
}

/// `text` as a NUL-terminated UTF-16 string.
fn wide(text: &str) -> Vec<u16> {
    text.encode_utf16().chain([0]).collect()
}

/// The path below `HKEY_CURRENT_USER` of a key relative to the classes root.
fn full_path(key: &str) -> Vec<u16> {
    wide(&format!(r"Software\Classes\{key}"))
}

/// A registry error for `key`.
fn error(key: &str, action: &'static str, code: WIN32_ERROR) -> RegistryError {
    RegistryError {
        key: key.to_owned(),
        action,
        source: std::io::Error::from_raw_os_error(code as i32),
    }
}

/// An open key under `HKEY_CURRENT_USER\Software\Classes`, closed on drop.
struct Key {
    handle: HKEY,
    path: String,
}

impl Key {
    /// Opens `path` for reading and writing, creating it (and its parents) when absent.
    fn create(path: &str) -> Result<Key, RegistryError> {
        let mut handle: HKEY = ptr::null_mut();
        let name = full_path(path);
        // SAFETY: `name` is NUL-terminated and outlives the call; `handle` receives the key.
        let code = unsafe {
            RegCreateKeyExW(
                HKEY_CURRENT_USER,
                name.as_ptr(),
                0,
                ptr::null(),
                REG_OPTION_NON_VOLATILE,
                KEY_READ | KEY_WRITE,
                ptr::null(),
                &mut handle,
                ptr::null_mut(),
            )
        };
        if code != ERROR_SUCCESS {
            return Err(error(path, "creating", code));
        }
        Ok(Key {
            handle,
            path: path.to_owned(),
        })
    }

    /// Opens `path` for reading and writing; `None` when it does not exist.
    fn open(path: &str) -> Result<Option<Key>, RegistryError> {
        let mut handle: HKEY = ptr::null_mut();
        let name = full_path(path);
        // SAFETY: as in `create`.
        let code = unsafe {
            RegOpenKeyExW(
                HKEY_CURRENT_USER,
                name.as_ptr(),
                0,
                KEY_READ | KEY_WRITE,
                &mut handle,
            )
        };
        match code {
            ERROR_SUCCESS => Ok(Some(Key {
                handle,
                path: path.to_owned(),
            })),
            ERROR_FILE_NOT_FOUND => Ok(None),
            code => Err(error(path, "opening", code)),
        }
    }

    /// The string (or empty `REG_NONE`, read as "") value `name`; `None` when absent.
    fn get(&self, name: Option<&str>) -> Result<Option<String>, RegistryError> {
        let name = name.map(wide);
        let name_ptr = name.as_ref().map_or(ptr::null(), |n| n.as_ptr());
        let mut buffer: Vec<u16> = vec![0; 256];
        loop {
            let mut bytes = u32::try_from(buffer.len() * 2).unwrap_or(u32::MAX);
            let mut kind = 0u32;
            // SAFETY: `name_ptr` is null or NUL-terminated; the call writes at most `bytes`
            // bytes into `buffer` and the type into `kind`.
            let code = unsafe {
                RegQueryValueExW(
                    self.handle,
                    name_ptr,
                    ptr::null(),
                    &mut kind,
                    buffer.as_mut_ptr().cast(),
                    &mut bytes,
                )
            };
            match code {
                ERROR_SUCCESS => {
                    let units = (bytes as usize / 2).min(buffer.len());
                    let text = &buffer[..units];
                    let text = text.strip_suffix(&[0]).unwrap_or(text);
                    return Ok(Some(String::from_utf16_lossy(text)));
                }
                ERROR_MORE_DATA => buffer.resize(bytes as usize / 2 + 1, 0),
                ERROR_FILE_NOT_FOUND => return Ok(None),
                code => return Err(error(&self.path, "reading", code)),
            }
        }
    }

    /// Writes `value` (its key is this key).
    fn set(&self, value: &RegistryValue) -> Result<(), RegistryError> {
        let name = value.name.as_deref().map(wide);
        let name_ptr = name.as_ref().map_or(ptr::null(), |n| n.as_ptr());
        let (kind, data) = match &value.data {
            Some(text) => (REG_SZ, wide(text)),
            None => (REG_NONE, Vec::new()),
        };
        let bytes = u32::try_from(data.len() * 2).unwrap_or(u32::MAX);
        // No data: a null pointer (an empty vector's pointer is dangling, and Windows checks
        // the address even for zero bytes: ERROR_NOACCESS).
        let data_ptr = if data.is_empty() {
            ptr::null()
        } else {
            data.as_ptr().cast()
        };
        // SAFETY: `name_ptr` is null or NUL-terminated; `data_ptr` is null with 0 bytes or
        // points to `bytes` bytes.
        let code = unsafe { RegSetValueExW(self.handle, name_ptr, 0, kind, data_ptr, bytes) };
        if code != ERROR_SUCCESS {
            return Err(error(&self.path, "writing", code));
        }
        Ok(())
    }

    /// Deletes the value `name`; whether it existed.
    fn delete_value(&self, name: Option<&str>) -> Result<bool, RegistryError> {
        let name = name.map(wide);
        let name_ptr = name.as_ref().map_or(ptr::null(), |n| n.as_ptr());
        // SAFETY: `name_ptr` is null or NUL-terminated.
        match unsafe { RegDeleteValueW(self.handle, name_ptr) } {
            ERROR_SUCCESS => Ok(true),
            ERROR_FILE_NOT_FOUND => Ok(false),
            code => Err(error(&self.path, "removing a value of", code)),
        }
    }

    /// The numbers of subkeys and of values.
    fn counts(&self) -> Result<(u32, u32), RegistryError> {
        let (mut subkeys, mut values) = (0u32, 0u32);
        // SAFETY: every out-pointer but the two counts is null, which the call allows.
        let code = unsafe {
            RegQueryInfoKeyW(
                self.handle,
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null(),
                &mut subkeys,
                ptr::null_mut(),
                ptr::null_mut(),
                &mut values,
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
                ptr::null_mut(),
            )
        };
        if code != ERROR_SUCCESS {
            return Err(error(&self.path, "reading", code));
        }
        Ok((subkeys, values))
    }
}

impl Drop for Key {
    fn drop(&mut self) {
        // SAFETY: the handle was opened by this value and is closed once.
        unsafe { RegCloseKey(self.handle) };
    }
}

/// Deletes `path` when it has no subkeys and no values; whether it did.
fn delete_if_empty(path: &str) -> Result<bool, RegistryError> {
    let Some(key) = Key::open(path)? else {
        return Ok(false);
    };
    if key.counts()? != (0, 0) {
        return Ok(false);
    }
    drop(key);
    let name = full_path(path);
    // SAFETY: `name` is NUL-terminated.
    match unsafe { RegDeleteKeyW(HKEY_CURRENT_USER, name.as_ptr()) } {
        ERROR_SUCCESS => Ok(true),
        ERROR_FILE_NOT_FOUND => Ok(false),
        code => Err(error(path, "removing", code)),
    }
}

/// Deletes `path` with everything below it; whether it existed.
fn delete_tree(path: &str) -> Result<bool, RegistryError> {
    if Key::open(path)?.is_none() {
        return Ok(false);
    }
    let name = full_path(path);
    // SAFETY: `name` is NUL-terminated; deleting the tree, then the key itself.
    let code = unsafe { RegDeleteTreeW(HKEY_CURRENT_USER, name.as_ptr()) };
    if code != ERROR_SUCCESS && code != ERROR_FILE_NOT_FOUND {
        return Err(error(path, "removing", code));
    }
    // SAFETY: as above.
    match unsafe { RegDeleteKeyW(HKEY_CURRENT_USER, name.as_ptr()) } {
        ERROR_SUCCESS | ERROR_FILE_NOT_FOUND => Ok(true),
        code => Err(error(path, "removing", code)),
    }
}
