/** PostCSS: Tailwind CSS 4 through its PostCSS plugin (config is loaded from app/globals.css). */
const config = {
  plugins: { "@tailwindcss/postcss": {} },
};

export default config;
