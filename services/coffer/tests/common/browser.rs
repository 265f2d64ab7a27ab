//! A person's clicks through a page, made without a browser: open the page, take one of its
//! forms with its hidden fields, fill in what the person types and post it with the page's
//! cookie, as a browser would; the answer's redirect is not followed, so the test reads
//! where it sends the person. For the pages a walk-through asks someone to click through:
//! the test provider's 3-D Secure page and the sign-in page.

use reqwest::redirect::Policy;
use url::Url;

/// A page as a browser got it: its address, the cookies it set and its HTML.
pub struct Page {
    pub url: Url,
    cookie: Option<String>,
    pub html: String,
}

/// A `<form method="post">` of a page: where it posts, and its hidden fields.
pub struct Form {
    pub action: String,
    pub fields: Vec<(String, String)>,
}

fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(Policy::none())
        .build()
        .unwrap()
}

/// Opens `url`, which must answer 200 with a page.
pub async fn open(url: &str) -> Page {
    let res = no_redirects().get(url).send().await.unwrap();
    assert_eq!(res.status(), 200, "opening {url}");
    let cookies: Vec<String> = res
        .headers()
        .get_all("set-cookie")
        .iter()
        .filter_map(|v| v.to_str().ok()?.split(';').next().map(str::to_owned))
        .collect();
    Page {
        url: Url::parse(url).unwrap(),
        cookie: (!cookies.is_empty()).then(|| cookies.join("; ")),
        html: res.text().await.unwrap(),
    }
}

fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The value of attribute `name` in a tag's markup (`<input type="hidden" name=…>`).
fn attribute(tag: &str, name: &str) -> Option<String> {
    let marker = format!(" {name}=\"");
    let start = tag.find(&marker)? + marker.len();
    let len = tag[start..].find('"')?;
    Some(unescape(&tag[start..start + len]))
}

impl Page {
    /// The post form whose markup holds `marker` (a button's text, a field's name).
    pub fn form(&self, marker: &str) -> Form {
        for (at, _) in self.html.match_indices("<form") {
            let rest = &self.html[at..];
            let markup = &rest[..rest.find("</form>").unwrap_or(rest.len())];
            if !markup.contains(marker) {
                continue;
            }
            let tag = &markup[..markup.find('>').unwrap()];
            assert_eq!(attribute(tag, "method").as_deref(), Some("post"), "{tag}");
            let fields = markup
                .match_indices("<input")
                .map(|(i, _)| &markup[i..i + markup[i..].find('>').unwrap()])
                .filter(|input| attribute(input, "type").as_deref() == Some("hidden"))
                .filter_map(|input| Some((attribute(input, "name")?, attribute(input, "value")?)))
                .collect();
            return Form {
                action: attribute(tag, "action").unwrap(),
                fields,
            };
        }
        panic!("no form with {marker:?} on {}: {}", self.url, self.html);
    }

    /// Posts `form` with its hidden fields and `typed`, as the browser that opened the
    /// page would; the answer as it came (a redirect is not followed).
    pub async fn submit(&self, form: &Form, typed: &[(&str, &str)]) -> reqwest::Response {
        let mut fields: Vec<(&str, &str)> = form
            .fields
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        fields.extend_from_slice(typed);
        let mut req = no_redirects()
            .post(self.url.join(&form.action).unwrap())
            .form(&fields);
        if let Some(cookie) = &self.cookie {
            req = req.header("cookie", cookie);
        }
        req.send().await.unwrap()
    }
}

/// Where a redirect answer sends the browser.
pub fn location(res: &reqwest::Response) -> Url {
    assert!(res.status().is_redirection(), "{}", res.status());
    let to = res.headers()["location"].to_str().unwrap();
    Url::parse(to).unwrap()
}
