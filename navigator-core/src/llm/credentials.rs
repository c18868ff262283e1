//! Credentials written into a `base_url` (`https://user:key@host/v1`): taken out of the URL
//! where the client is built, so the URL that later appears in errors, `Debug` output and logs
//! holds none, and sent as HTTP basic authentication (what reqwest itself does with them).

/// The user and password of a URL, sent as basic authentication; `Debug` shows neither.
#[derive(Clone)]
pub(crate) struct UrlCredentials {
    pub user: String,
    pub password: Option<String>,
}

impl std::fmt::Debug for UrlCredentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("UrlCredentials([redacted])")
    }
}

/// Where the user-info part (`user:key@`) of `url` lies, if it has one.
fn userinfo(url: &str) -> Option<std::ops::Range<usize>> {
    let start = url.find("://")? + 3;
    let authority_len = url[start..]
        .find(['/', '?', '#'])
        .unwrap_or(url.len() - start);
    let at = url[start..start + authority_len].rfind('@')?;
    Some(start..start + at + 1)
}

/// `url` without its user-info, and the credentials it held (percent-decoded).
pub(crate) fn split_credentials(url: &str) -> (String, Option<UrlCredentials>) {
    let Some(range) = userinfo(url) else {
        return (url.to_string(), None);
    };
    let info = &url[range.start..range.end - 1];
    let (user, password) = match info.split_once(':') {
        Some((u, p)) => (u, Some(p)),
        None => (info, None),
    };
    let stripped = format!("{}{}", &url[..range.start], &url[range.end..]);
    let credentials = UrlCredentials {
        user: percent_decode(user),
        password: password.map(percent_decode),
    };
    (stripped, Some(credentials))
}

/// `url` with any user-info replaced by `[redacted]@`, for `Debug` output of configurations.
pub(crate) fn redact_url(url: &str) -> String {
    match userinfo(url) {
        Some(range) => format!("{}[redacted]@{}", &url[..range.start], &url[range.end..]),
        None => url.to_string(),
    }
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_split_off_and_decoded() {
        let (url, creds) = split_credentials("https://me:s%40cret@api.example.com/v1?x=a@b");
        assert_eq!(url, "https://api.example.com/v1?x=a@b");
        let creds = creds.unwrap();
        assert_eq!(creds.user, "me");
        assert_eq!(creds.password.as_deref(), Some("s@cret"));
        assert!(!format!("{:?}", split_credentials("http://k@h").1).contains('k'));

        let (url, creds) = split_credentials("http://127.0.0.1:8080/v1");
        assert_eq!(url, "http://127.0.0.1:8080/v1");
        assert!(creds.is_none());
        assert_eq!(
            redact_url("https://user:key@host/v1"),
            "https://[redacted]@host/v1"
        );
        assert_eq!(redact_url("no scheme@all"), "no scheme@all");
    }
}
