//! The random parts of the search: Dirichlet noise, Gumbel noise and choosing
//! a move with a temperature. All draw from the search's own seeded generator.

use rand::Rng;
use rand_distr::{Distribution, Gamma, Gumbel};

/// Fills `out` with one sample of a symmetric Dirichlet distribution of
/// dimension `len` and total concentration `total_alpha` (each component has
/// `alpha = total_alpha / len`), by normalising Gamma(alpha, 1) samples.
pub(crate) fn dirichlet(rng: &mut impl Rng, total_alpha: f32, len: usize, out: &mut Vec<f32>) {
    out.clear();
    let alpha = f64::from(total_alpha) / len as f64;
    let gamma = Gamma::new(alpha, 1.0).expect("alpha is validated positive and finite");
    out.extend((0..len).map(|_| gamma.sample(rng) as f32));
    let sum: f32 = out.iter().sum();
    if sum > 0.0 && sum.is_finite() {
        out.iter_mut().for_each(|x| *x /= sum);
    } else {
        // Every sample underflowed (tiny alpha): the distribution's limit puts
        // all the mass on one component chosen uniformly.
        out.fill(0.0);
        out[rng.random_range(0..len)] = 1.0;
    }
}

/// Fills `out` with `len` independent Gumbel(0, scale) samples.
pub(crate) fn gumbel(rng: &mut impl Rng, scale: f32, len: usize, out: &mut Vec<f32>) {
    out.clear();
    if scale == 0.0 {
        out.resize(len, 0.0);
        return;
    }
    let gumbel =
        Gumbel::new(0.0, f64::from(scale)).expect("scale is validated positive and finite");
    out.extend((0..len).map(|_| gumbel.sample(rng) as f32));
}

/// Samples an index with probability proportional to `weights[i]^(1/temperature)`.
/// `weights` are non-negative with a positive maximum; `temperature > 0`.
/// Works in log space so that small temperatures do not overflow.
pub(crate) fn sample_with_temperature(
    rng: &mut impl Rng,
    weights: &[f32],
    temperature: f32,
) -> usize {
    debug_assert!(temperature > 0.0);
    let max = weights.iter().copied().fold(0.0f32, f32::max);
    debug_assert!(max > 0.0);
    let scaled = |w: f32| {
        if w > 0.0 {
            ((w / max).ln() / temperature).exp()
        } else {
            0.0
        }
    };
    let total: f32 = weights.iter().map(|&w| scaled(w)).sum();
    let mut threshold = rng.random::<f32>() * total;
    let mut last_positive = 0;
    for (index, &w) in weights.iter().enumerate() {
        let p = scaled(w);
        if p > 0.0 {
            if threshold < p {
                return index;
            }
            threshold -= p;
            last_positive = index;
        }
    }
    // Rounding left a sliver of `total` unclaimed.
    last_positive
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn dirichlet_moments_match_theory() {
        // E[x_i] = 1/n, Var[x_i] = (1/n)(1 - 1/n) / (total_alpha + 1).
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let (n, total_alpha, draws) = (20usize, 10.0f32, 20_000);
        let mut sum = vec![0.0f64; n];
        let mut sum_sq = vec![0.0f64; n];
        let mut sample = Vec::new();
        for _ in 0..draws {
            dirichlet(&mut rng, total_alpha, n, &mut sample);
            assert!((sample.iter().sum::<f32>() - 1.0).abs() < 1e-4);
            for (i, &x) in sample.iter().enumerate() {
                sum[i] += f64::from(x);
                sum_sq[i] += f64::from(x) * f64::from(x);
            }
        }
        let mean_expected = 1.0 / n as f64;
        let var_expected = mean_expected * (1.0 - mean_expected) / (f64::from(total_alpha) + 1.0);
        for i in 0..n {
            let mean = sum[i] / f64::from(draws);
            let var = sum_sq[i] / f64::from(draws) - mean * mean;
            assert!(
                (mean - mean_expected).abs() < 0.003,
                "component {i}: mean {mean}"
            );
            assert!(
                (var / var_expected - 1.0).abs() < 0.1,
                "component {i}: var {var} vs {var_expected}"
            );
        }
    }

    #[test]
    fn dirichlet_with_tiny_alpha_is_still_a_distribution() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let mut sample = Vec::new();
        for _ in 0..100 {
            dirichlet(&mut rng, 1e-6, 3, &mut sample);
            assert!(
                (sample.iter().sum::<f32>() - 1.0).abs() < 1e-4,
                "{sample:?}"
            );
        }
    }

    #[test]
    fn gumbel_mean_is_euler_gamma() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut sample = Vec::new();
        gumbel(&mut rng, 1.0, 50_000, &mut sample);
        let mean = sample.iter().map(|&x| f64::from(x)).sum::<f64>() / 50_000.0;
        assert!((mean - 0.5772).abs() < 0.02, "mean {mean}");
        gumbel(&mut rng, 0.0, 4, &mut sample);
        assert_eq!(sample, vec![0.0; 4]);
    }

    fn frequencies(weights: &[f32], temperature: f32, draws: usize) -> Vec<f64> {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let mut counts = vec![0usize; weights.len()];
        for _ in 0..draws {
            counts[sample_with_temperature(&mut rng, weights, temperature)] += 1;
        }
        counts.iter().map(|&c| c as f64 / draws as f64).collect()
    }

    #[test]
    fn temperature_one_samples_proportionally() {
        let freq = frequencies(&[10.0, 30.0, 0.0, 60.0], 1.0, 40_000);
        for (got, want) in freq.iter().zip([0.1, 0.3, 0.0, 0.6]) {
            assert!((got - want).abs() < 0.01, "{freq:?}");
        }
    }

    #[test]
    fn lower_temperature_sharpens_and_higher_flattens() {
        // T = 0.5 squares the weights: 1:9:36 of 46.
        let freq = frequencies(&[10.0, 30.0, 60.0], 0.5, 40_000);
        for (got, want) in freq.iter().zip([1.0 / 46.0, 9.0 / 46.0, 36.0 / 46.0]) {
            assert!((got - want).abs() < 0.01, "{freq:?}");
        }
        let freq = frequencies(&[10.0, 30.0, 60.0], 100.0, 40_000);
        assert!(
            freq.iter().all(|&f| (f - 1.0 / 3.0).abs() < 0.03),
            "{freq:?}"
        );
        // Tiny temperatures neither overflow nor pick anything but the maximum.
        assert_eq!(frequencies(&[10.0, 30.0, 60.0], 1e-4, 1000)[2], 1.0);
    }
}
