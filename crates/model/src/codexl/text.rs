//! Text helpers of the CodeXL table readers.

use std::borrow::Cow;

/// Text of bytes that may not be UTF-8: valid UTF-8 stays, each byte of an invalid sequence
/// becomes its Latin-1 character (readable, never `U+FFFD`).
pub fn decode(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => {
            let mut out = String::with_capacity(bytes.len() + 8);
            for chunk in bytes.utf8_chunks() {
                out.push_str(chunk.valid());
                out.extend(chunk.invalid().iter().map(|&b| char::from(b)));
            }
            Cow::Owned(out)
        }
    }
}

/// Undoes the HSA name escapes: `&nbsp;` → space, `&comma;` → `,`.
pub fn unescape(text: &str) -> Cow<'_, str> {
    if !text.contains('&') {
        return Cow::Borrowed(text);
    }
    Cow::Owned(text.replace("&nbsp;", " ").replace("&comma;", ","))
}

#[cfg(test)]
mod tests {
    #[test]
    fn decode_and_unescape() {
        assert_eq!(super::decode(b"a\xe9b"), "aéb");
        assert_eq!(super::unescape("x&nbsp;y&comma;z"), "x y,z");
    }
}
