//! The demangler's tables (builtin types, operators, `std::` abbreviations) and the base
//! name of a printed scope.

/// Builtin types by their code (one letter, or two after `D`).
pub fn builtin(code: &[u8]) -> Option<&'static str> {
    Some(match code {
        b"v" => "void",
        b"w" => "wchar_t",
        b"b" => "bool",
        b"c" => "char",
        b"a" => "signed char",
        b"h" => "unsigned char",
        b"s" => "short",
        b"t" => "unsigned short",
        b"i" => "int",
        b"j" => "unsigned int",
        b"l" => "long",
        b"m" => "unsigned long",
        b"x" => "long long",
        b"y" => "unsigned long long",
        b"n" => "__int128",
        b"o" => "unsigned __int128",
        b"f" => "float",
        b"d" => "double",
        b"e" => "long double",
        b"g" => "__float128",
        b"z" => "...",
        b"Dd" => "decimal64",
        b"De" => "decimal128",
        b"Df" => "decimal32",
        b"Dh" => "half",
        b"Di" => "char32_t",
        b"Ds" => "char16_t",
        b"Du" => "char8_t",
        b"Da" => "auto",
        b"Dc" => "decltype(auto)",
        b"Dn" => "std::nullptr_t",
        _ => return None,
    })
}

/// Operator names by their two-letter code: the symbol printed after `operator `.
pub fn operator(code: &[u8]) -> Option<&'static str> {
    Some(match code {
        b"nw" => "new",
        b"na" => "new[]",
        b"dl" => "delete",
        b"da" => "delete[]",
        b"ps" | b"pl" => "+",
        b"ng" | b"mi" => "-",
        b"ad" | b"an" => "&",
        b"de" | b"ml" => "*",
        b"co" => "~",
        b"dv" => "/",
        b"rm" => "%",
        b"or" => "|",
        b"eo" => "^",
        b"aS" => "=",
        b"pL" => "+=",
        b"mI" => "-=",
        b"mL" => "*=",
        b"dV" => "/=",
        b"rM" => "%=",
        b"aN" => "&=",
        b"oR" => "|=",
        b"eO" => "^=",
        b"ls" => "<<",
        b"rs" => ">>",
        b"lS" => "<<=",
        b"rS" => ">>=",
        b"eq" => "==",
        b"ne" => "!=",
        b"lt" => "<",
        b"gt" => ">",
        b"le" => "<=",
        b"ge" => ">=",
        b"ss" => "<=>",
        b"nt" => "!",
        b"aa" => "&&",
        b"oo" => "||",
        b"pp" => "++",
        b"mm" => "--",
        b"cm" => ",",
        b"pm" => "->*",
        b"pt" => "->",
        b"cl" => "()",
        b"ix" => "[]",
        b"qu" => "?",
        b"aw" => "co_await",
        _ => return None,
    })
}

/// The `std::` abbreviations (`Sa`, `Sb`, `Ss`, `Si`, `So`, `Sd`).
pub fn std_abbreviation(code: u8) -> Option<&'static str> {
    Some(match code {
        b'a' => "std::allocator",
        b'b' => "std::basic_string",
        b's' => "std::string",
        b'i' => "std::istream",
        b'o' => "std::ostream",
        b'd' => "std::iostream",
        _ => return None,
    })
}

/// The last component of a printed name without its template arguments (`A` of
/// `ns::A<int>`): a constructor's or destructor's own name.
pub fn base_name(name: &str) -> &str {
    let mut depth = 0i32;
    let mut start = 0;
    let mut end = name.len();
    let bytes = name.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'<' | b'(' | b'[' => {
                if depth == 0 && b == b'<' {
                    end = i;
                }
                depth += 1;
            }
            b'>' | b')' | b']' => depth -= 1,
            b':' if depth == 0 && bytes.get(i + 1) == Some(&b':') => {
                start = i + 2;
                end = name.len();
            }
            _ => {}
        }
    }
    name.get(start..end.max(start)).unwrap_or(name)
}
