/**
 * The emulator's own Timestamps read for ./json.ts's encoder: the form Date#toISOString writes (every time the
 * emulator sends, "2026-11-28T23:55:50.123Z") as milliseconds since the epoch. Any other text is left to
 * @bufbuild/protobuf, which decides what it accepts. The same stored objects are listed again and again, so an
 * instant once read is kept (a bounded number of them): a 200-group list's 400 Timestamps cost ~30 µs read
 * digit by digit, a few looked up.
 */

/** How many instants are kept: about a megabyte at most; past it the kept ones are let go and kept again as met. */
const KEPT = 16_384;

/** Instants read, by their text; only texts of toISOString's form from 1970 on. */
const kept = new Map<string, number>();

/**
 * `text` as milliseconds since the epoch when it is toISOString's form of an instant from 1970 on; NaN for any
 * other text (another form, a date before 1970, one that does not exist).
 */
export function isoMillis(text: string): number {
  const known = kept.get(text);
  if (known !== undefined) return known;
  const ms = readIsoMillis(text);
  if (Number.isNaN(ms)) return ms;
  if (kept.size >= KEPT) kept.clear();
  kept.set(text, ms);
  return ms;
}

/**
 * isoMillis read digit by digit. A date before 1970 (where Date.UTC reads years 0..99 as 19xx) and one that does
 * not exist (February 30th) are NaN. Four year digits keep it within a Timestamp's range (up to
 * 9999-12-31T23:59:59.999999999Z).
 */
function readIsoMillis(text: string): number {
  if (text.length !== 24 || !isoSeparators(text)) return NaN;
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 7);
  const day = digits(text, 8, 10);
  const hours = digits(text, 11, 13);
  const minutes = digits(text, 14, 16);
  const seconds = digits(text, 17, 19);
  const millis = digits(text, 20, 23);
  // Written so that NaN (a character that is not a digit) fails each test.
  if (!(year >= 1970 && month >= 1 && month <= 12 && day >= 1 && day <= daysIn(year, month))) return NaN;
  if (!(hours <= 23 && minutes <= 59 && seconds <= 59 && millis >= 0)) return NaN;
  return ((epochDays(year, month, day) * 24 + hours) * 60 + minutes) * 60_000 + seconds * 1000 + millis;
}

/** "YYYY-MM-DDTHH:MM:SS.mmmZ"'s punctuation. */
function isoSeparators(text: string): boolean {
  return (
    text.charCodeAt(4) === 0x2d && // -
    text.charCodeAt(7) === 0x2d &&
    text.charCodeAt(10) === 0x54 && // T
    text.charCodeAt(13) === 0x3a && // :
    text.charCodeAt(16) === 0x3a &&
    text.charCodeAt(19) === 0x2e && // .
    text.charCodeAt(23) === 0x5a // Z
  );
}

/** The decimal number text[from, to) spells, NaN when a character is not an ASCII digit. */
function digits(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return NaN;
    n = n * 10 + digit;
  }
  return n;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysIn(year: number, month: number): number {
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!;
}

/**
 * Days from 1970-01-01 to a date of the proleptic Gregorian calendar from 1970 on (Date.UTC's count, without the
 * Date): whole 400-year eras, then years, then days of the year counted from March so February's leap day is last.
 */
function epochDays(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}
