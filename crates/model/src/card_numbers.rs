//! Card numbers in text a client chose (a JSON object's key, an unknown property) that an
//! error would otherwise say back: a run of 13 to 19 digits, spaces or dashes between them
//! allowed as a card number is written, that passes the Luhn check is a card number, and is
//! replaced. Coffer's own numbers (bounds such as 9999999999999) fail the check and stay.

/// `text` with every card number in it replaced by `[card number]`.
pub fn without_card_numbers(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        if !chars[i].is_ascii_digit() {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        let end = run_end(&chars, i);
        let digits: String = chars[i..end]
            .iter()
            .filter(|c| c.is_ascii_digit())
            .collect();
        if (13..=19).contains(&digits.len()) && luhn(&digits) {
            out.push_str("[card number]");
        } else {
            out.extend(&chars[i..end]);
        }
        i = end;
    }
    out
}

/// Where the run of digits starting at `start` ends: digits, with single spaces or dashes
/// between them.
fn run_end(chars: &[char], start: usize) -> usize {
    let mut end = start;
    let mut j = start;
    while j < chars.len() {
        let separated =
            matches!(chars[j], ' ' | '-') && chars.get(j + 1).is_some_and(char::is_ascii_digit);
        if chars[j].is_ascii_digit() {
            end = j + 1;
        } else if !separated {
            break;
        }
        j += 1;
    }
    end
}

/// Whether a run of ASCII digits passes the Luhn check, as every card number does.
pub fn luhn(digits: &str) -> bool {
    let sum: u32 = digits
        .bytes()
        .rev()
        .enumerate()
        .map(|(i, b)| {
            let d = u32::from(b - b'0');
            if i % 2 == 1 {
                let doubled = d * 2;
                if doubled > 9 { doubled - 9 } else { doubled }
            } else {
                d
            }
        })
        .sum();
    sum.is_multiple_of(10)
}

#[cfg(test)]
mod tests {
    use super::without_card_numbers;

    #[test]
    fn card_numbers_go_and_other_numbers_stay() {
        assert_eq!(
            without_card_numbers("custom_parameters.4111111111111111"),
            "custom_parameters.[card number]"
        );
        assert_eq!(
            without_card_numbers("unknown field `4111 1111-1111 1111`"),
            "unknown field `[card number]`"
        );
        for kept in [
            "must be at most 9999999999999 minor units in CHF",
            "items.12.count",
            "4111111111111112",
            "at 1767225600",
        ] {
            assert_eq!(without_card_numbers(kept), kept);
        }
    }
}
