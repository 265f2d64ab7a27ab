//! A day's payments per quarter hour, as a roll-up row keeps them: 96 counts, each an
//! unsigned LEB128 number, so a day of a few payments a quarter takes 96 bytes. Quarter
//! hours are what every time zone's midnight falls on (offsets of 30 and 45 minutes
//! included), so local days of any zone are sums of them. Pure.

pub const PER_DAY: usize = 96;
pub const QUARTER: i64 = 900;

/// The 96 counts of a day.
pub type Quarters = [u64; PER_DAY];

pub fn encode(counts: &Quarters) -> Vec<u8> {
    let mut out = Vec::with_capacity(PER_DAY);
    for &count in counts {
        let mut n = count;
        loop {
            let byte = (n & 0x7f) as u8;
            n >>= 7;
            if n == 0 {
                out.push(byte);
                break;
            }
            out.push(byte | 0x80);
        }
    }
    out
}

/// The counts `bytes` hold, or `None` when they are not 96 well-formed numbers.
pub fn decode(bytes: &[u8]) -> Option<Quarters> {
    let mut counts = [0u64; PER_DAY];
    let mut at = 0;
    for slot in &mut counts {
        let mut n = 0u64;
        let mut shift = 0;
        loop {
            let byte = *bytes.get(at)?;
            at += 1;
            n |= u64::from(byte & 0x7f).checked_shl(shift)?;
            if byte & 0x80 == 0 {
                break;
            }
            shift += 7;
            if shift > 63 {
                return None;
            }
        }
        *slot = n;
    }
    (at == bytes.len()).then_some(counts)
}

/// `counts` moved by `change` at quarter `q` of the day; `None` when a count would fall
/// below nothing (only a fold that lost changes could make one), which is then kept at
/// nothing.
pub fn add(counts: &mut Quarters, q: usize, change: i64) -> Option<()> {
    let slot = counts.get_mut(q)?;
    match slot.checked_add_signed(change) {
        Some(moved) => {
            *slot = moved;
            Some(())
        }
        None => {
            *slot = 0;
            None
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn counts_come_back_as_they_went_in() {
        let mut counts = [0u64; PER_DAY];
        counts[0] = 1;
        counts[37] = 127;
        counts[38] = 128;
        counts[95] = u64::MAX;
        let bytes = encode(&counts);
        assert_eq!(decode(&bytes), Some(counts));
        assert_eq!(encode(&[3; PER_DAY]).len(), PER_DAY);
        assert_eq!(decode(&bytes[..bytes.len() - 1]), None);
        assert_eq!(decode(&[0; PER_DAY + 1]), None);
        add(&mut counts, 0, -1).unwrap();
        assert_eq!(counts[0], 0);
        assert!(add(&mut counts, 1, -2).is_none(), "below nothing");
        assert_eq!(counts[1], 0, "kept at nothing");
    }
}
