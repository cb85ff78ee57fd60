//! Colours as a person reads them in a sentence, for the terminal board and
//! the SVG pictures alike.

use sumito_engine::Color;

/// "Black" or "White", as a person writes it at the start of a sentence.
pub fn color_title(color: Color) -> &'static str {
    match color {
        Color::Black => "Black",
        Color::White => "White",
    }
}
